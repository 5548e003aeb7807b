"""Domain and problem readers over the one grammar `pddl.lark` (one small class per start rule)."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.lexical import check_source, read_source

from . import ast, fastread

if TYPE_CHECKING:
    from lark import Lark

_UNSUPPORTED = re.compile(
    r"\(\s*(:constraints|preference|:length|:process|:event)(?![\w\-])",
    re.IGNORECASE)


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The shared LALR parser (built once per process, and only when the fast reader declines a file)."""
    from importlib import resources

    from lark import Lark

    text = resources.files("hygiene_pddl.pddl").joinpath("pddl.lark").read_text(encoding="utf-8")
    return Lark(text, start=["domain", "problem"], parser="lalr", lexer="contextual",
                maybe_placeholders=False, propagate_positions=True)


def _read(path: str | Path) -> str:
    try:
        return read_source(path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", Location(str(path)), found=None) from None


class _PddlParser:
    """Parse one kind of PDDL file (the start rule)."""

    start = ""
    fast = staticmethod(fastread.read_domain_text)  # the fast reader for `start` (Fallback: use the grammar)

    def parse(self, text: str, file: str | None = None):
        """Parse `text`; raise InputError with file:line:column and the nesting path."""
        text = text.removeprefix("\ufeff")  # a leading byte-order mark is ignored, as in VAL
        self._reject_unsupported(text, check_source(text, file, self.start), file)
        try:
            return self.fast(text)
        except fastread.Fallback:
            pass
        return self._parse_with_grammar(text, file)

    def _parse_with_grammar(self, text: str, file: str | None):
        from lark.exceptions import UnexpectedInput, VisitError

        from .errors import at_offset, from_lark
        from .transform import SemanticError, ToAst

        parser = grammar()
        try:
            tree = parser.parse(text, start=self.start)
        except UnexpectedInput as exc:
            raise from_lark(exc, parser, text, file, self.start) from None
        try:
            return ToAst().transform(tree)
        except VisitError as exc:
            orig = exc.orig_exc
            if isinstance(orig, SemanticError):
                token = orig.token
                offset = getattr(token, "start_pos", None)
                if offset is None:
                    meta = getattr(exc.obj, "meta", None)
                    offset = getattr(meta, "start_pos", None)
                raise at_offset(text, offset or 0, file, orig.message, self.start) from None
            raise

    def parse_file(self, path: str | Path):
        """Read and parse the file at `path`."""
        text = _read(path)
        try:
            return self.parse(text, str(path))
        except InputError as exc:
            if exc.location.file is None:
                exc.location = replace(exc.location, file=str(path))
            raise

    def _reject_unsupported(self, text: str, clean: str, file: str | None) -> None:
        m = _UNSUPPORTED.search(clean)
        if m:
            what = m.group(1).lower()
            from .errors import at_offset

            raise at_offset(text, m.start(), file,
                            f"'{what}' is not supported (PDDL 2.1 + timed initial literals only)",
                            self.start)


class DomainParser(_PddlParser):
    start = "domain"
    fast = staticmethod(fastread.read_domain_text)

    def parse(self, text: str, file: str | None = None) -> ast.Domain:
        return super().parse(text, file)


class ProblemParser(_PddlParser):
    start = "problem"
    fast = staticmethod(fastread.read_problem_text)

    def parse(self, text: str, file: str | None = None) -> ast.Problem:
        return super().parse(text, file)


def parse_domain(text: str, file: str | None = None) -> ast.Domain:
    """Parse domain text."""
    return DomainParser().parse(text, file)


def parse_problem(text: str, file: str | None = None) -> ast.Problem:
    """Parse problem text."""
    return ProblemParser().parse(text, file)


def read_domain(path: str | Path) -> ast.Domain:
    """Read and parse a domain file."""
    return DomainParser().parse_file(path)


def read_problem(path: str | Path) -> ast.Problem:
    """Read and parse a problem file."""
    return ProblemParser().parse_file(path)
