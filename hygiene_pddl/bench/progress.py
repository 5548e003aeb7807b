"""A progress bar for long runs (bench, ``build --full``): done of all, failures, time spent and time left.

Time left is estimated from the items finished in *this* session only (items resumed from an earlier run took
no time now), as (items left) x (seconds so far / items finished now); before the first item finishes it
reads "estimating", and at the end "done".
"""

from __future__ import annotations

import time
from typing import Any


def clock(seconds: float) -> str:
    """``H:MM:SS``."""
    s = int(round(max(0.0, seconds)))
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def time_left(total: int, done: int, resumed: int, elapsed: float) -> float | None:
    """Seconds left by the rate of this session; None until an item finished in it."""
    now = done - resumed
    if now <= 0:
        return None
    return (total - done) * elapsed / now


def eta_text(total: int, done: int, resumed: int, elapsed: float) -> str:
    """"0:01:58 spent, about 0:03:10 left" (or "estimating" / "done")."""
    if done >= total:
        return f"{clock(elapsed)} spent, done"
    left = time_left(total, done, resumed, elapsed)
    return f"{clock(elapsed)} spent, " + ("time left: estimating" if left is None else f"about {clock(left)} left")


class Progress:
    """A rich progress bar on stderr (nothing when disabled); counts failures when told about them."""

    def __init__(self, total: int, done: int = 0, failures: int = 0, enabled: bool = True, label: str = "bench",
                 unit: str = "runs", count_failures: bool = True):
        self.enabled, self.total, self.done, self.resumed = enabled, total, done, done
        self.failures = failures
        self.started = time.monotonic()
        if not enabled:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TextColumn
        from rich.progress import Progress as RichProgress
        from rich.text import Text

        outer = self

        class Eta(ProgressColumn):
            def render(self, task: Any) -> Text:  # noqa: ARG002 - rich's signature
                return Text(eta_text(outer.total, outer.done, outer.resumed, time.monotonic() - outer.started))

        columns = [TextColumn(f"[bold]{label}"), BarColumn(bar_width=30), MofNCompleteColumn(), TextColumn(unit)]
        if count_failures:
            columns.append(TextColumn("[red]{task.fields[failures]} failed"))
        self.bar = RichProgress(*columns, Eta(), console=Console(stderr=True))
        self.task = self.bar.add_task(label, total=total, completed=done, failures=failures)

    def __enter__(self) -> Progress:
        if self.enabled:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            self.bar.stop()

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failures += int(failed)
        if self.enabled:
            self.bar.update(self.task, advance=1, failures=self.failures)


class RoundProgress:
    """``progress(done, total)`` callbacks for work that comes in rounds (``build --full``'s certification):
    ``done == 0`` opens a bar of ``total`` items, each later call advances it, the last one closes it."""

    def __init__(self, label: str, unit: str, enabled: bool = True):
        self.label, self.unit, self.enabled = label, unit, enabled
        self.bar: Progress | None = None

    def __call__(self, done: int, total: int) -> None:
        if done == 0:
            self.close()
            if total:
                self.bar = Progress(total, enabled=self.enabled, label=self.label, unit=self.unit,
                                    count_failures=False).__enter__()
            return
        if self.bar is not None:
            self.bar.advance()
            if done >= total:
                self.close()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__()
            self.bar = None
