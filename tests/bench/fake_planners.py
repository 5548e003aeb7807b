"""Fake planners for the bench tests, registered only where this file is imported (the test process and,
through ``--plugin``, the bench workers)."""

from __future__ import annotations

import dataclasses
import os
import resource
import threading
import time

from hygiene_pddl.planners.base import PlannerInfo, PlanStatus, no_plan_result, register
from hygiene_pddl.planners.nsp import HygieneNSP

COUNTER_ENV = "HYGIENE_BENCH_TEST_COUNTER"  # a file that gets one line per solver invocation
DELAY_ENV = "HYGIENE_BENCH_TEST_DELAY"  # seconds each counting solve sleeps first


class Counting:
    """Hygiene-NSP, counting its invocations and optionally slowed down."""

    def solve(self, inst, time_limit, reg):
        path = os.environ.get(COUNTER_ENV)
        if path:
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(f"{inst.id}\n")
        time.sleep(float(os.environ.get(DELAY_ENV, "0")))
        return HygieneNSP(name="fake-count").solve(inst, time_limit, reg)


class Sleeper:
    """Ignores its time limit."""

    def solve(self, inst, time_limit, reg):
        time.sleep(3600)


class Hog:
    """Allocates until the address-space limit stops it (refuses to run without a limit)."""

    def solve(self, inst, time_limit, reg):
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft == resource.RLIM_INFINITY or soft > 8 * 1024**3:
            raise RuntimeError("fake-hog needs an address-space limit of at most 8 GB")
        chunks = []
        while True:  # calloc'd zero pages: address space grows at once, no time spent touching memory
            chunks.append(bytes(256 * 1024 * 1024))


class OutOfTime:
    """Answers undetermined because its time ran out (as a planner whose search hit the limit does)."""

    def solve(self, inst, time_limit, reg):
        return no_plan_result("fake-timeout", reg, inst, PlanStatus.UNDETERMINED, (("total", time_limit),),
                              ["search stopped at the time limit"], timed_out=True)


CALLS = 0  # module state: a call that sees another call's increment was not isolated


class Stateful:
    """Counts its calls in module state and reports the count as usage."""

    def solve(self, inst, time_limit, reg):
        global CALLS
        CALLS += 1
        result = no_plan_result("fake-state", reg, inst, PlanStatus.UNDETERMINED, (("total", 0.0),), [])
        return dataclasses.replace(result, usage=(("calls", CALLS), ("pid", os.getpid())))


class Linger:
    """Answers at once but leaves a non-daemon thread behind, so a spawned worker cannot exit."""

    def solve(self, inst, time_limit, reg):
        threading.Thread(target=time.sleep, args=(3600,), daemon=False).start()
        return no_plan_result("fake-linger", reg, inst, PlanStatus.UNDETERMINED, (("total", 0.0),), [])


class Crash:
    def solve(self, inst, time_limit, reg):
        raise ValueError("fake planner crashed on purpose")


register(PlannerInfo("fake-count", "test: counting hygiene-nsp", Counting))
register(PlannerInfo("fake-sleep", "test: never answers", Sleeper))
register(PlannerInfo("fake-hog", "test: allocates without bound", Hog))
register(PlannerInfo("fake-crash", "test: raises", Crash))
register(PlannerInfo("fake-timeout", "test: out of time", OutOfTime))
register(PlannerInfo("fake-linger", "test: answers, then keeps its process alive", Linger))
register(PlannerInfo("fake-state", "test: counts its calls in module state", Stateful))
register(PlannerInfo("fake-unavailable", "test: cannot run", Crash, lambda: (False, "not installed")))
