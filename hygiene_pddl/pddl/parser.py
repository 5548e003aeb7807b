"""Domain and problem readers over the one grammar `pddl.lark` (one small class per start rule)."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from pathlib import Path

from lark import Lark
from lark.exceptions import UnexpectedInput, VisitError

from hygiene_pddl.errors import InputError, Location
from hygiene_pddl.lexical import check_source, read_source

from . import ast
from .errors import at_offset, from_lark
from .transform import SemanticError, ToAst

_UNSUPPORTED = re.compile(
    r"\(\s*(:constraints|preference|:length|:process|:event)(?![\w\-])",
    re.IGNORECASE)


@lru_cache(maxsize=1)
def grammar() -> Lark:
    """The shared LALR parser (built once per process)."""
    text = resources.files("hygiene_pddl.pddl").joinpath("pddl.lark").read_text(encoding="utf-8")
    return Lark(text, start=["domain", "problem"], parser="lalr", lexer="contextual",
                maybe_placeholders=False, propagate_positions=True)


def _read(path: str | Path) -> str:
    try:
        return read_source(path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", Location(str(path))) from None


class _PddlParser:
    """Parse one kind of PDDL file (the start rule)."""

    start = ""

    def parse(self, text: str, file: str | None = None):
        """Parse `text`; raise InputError with file:line:column and the nesting path."""
        self._reject_unsupported(text, check_source(text, file, self.start), file)
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
            raise at_offset(text, m.start(), file,
                            f"'{what}' is not supported (PDDL 2.1 + timed initial literals only)",
                            self.start)


class DomainParser(_PddlParser):
    start = "domain"

    def parse(self, text: str, file: str | None = None) -> ast.Domain:
        return super().parse(text, file)


class ProblemParser(_PddlParser):
    start = "problem"

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
