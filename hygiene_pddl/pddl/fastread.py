"""A fast reader for the plain subset of `pddl.lark`: s-expressions straight to `ast`.

Lark's LALR parser in pure Python costs ~15 ms for one benchmark problem; batch validation reads hundreds.
This reader accepts a strict subset of what the grammar accepts (ASCII outside comments, spaces/tabs/CR/LF
as whitespace, no name that is also a keyword, no semantic error) and builds the same AST the grammar's
transformer builds. On anything else it raises :class:`Fallback`, and the caller runs the Lark grammar,
which either reads the text or reports the error with file, line, column and nesting path. So the
grammar stays the one definition of the language; tests check that both readers agree.
"""

from __future__ import annotations

import re
from fractions import Fraction

from hygiene_pddl.decimals import parse_decimal

from . import ast

_TOKEN = re.compile(r";[^\n]*|[()]|[^ \t\r\n();]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*\Z")
_VAR = re.compile(r"\?[A-Za-z_][A-Za-z0-9_\-]*\Z")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?\Z")
_REQ = re.compile(r":[A-Za-z][A-Za-z0-9_\-]*\Z")
#: Names the grammar may read as keywords in some context: leave those files to Lark.
_KEYWORDS = frozenset(
    "define domain problem and or not imply exists forall when either assign increase decrease scale-up "
    "scale-down total-time minimize maximize over start end all".split())
_ASSIGN = frozenset(("assign", "increase", "decrease", "scale-up", "scale-down"))
_COMP = frozenset(("<=", ">=", "<", ">", "="))
_DURATION_OPS = frozenset(("<=", ">=", "="))
_WHEN = {"start": ast.AT_START, "end": ast.AT_END}


class Fallback(Exception):
    """The text is outside the fast reader's subset: let the Lark grammar decide."""


def sexpr(text: str) -> list:
    """The single top-level s-expression of `text` as nested lists of atoms (comments dropped)."""
    if "\f" in text or "\v" in text:
        raise Fallback
    plain = text.isascii()
    stack: list[list] = []
    cur: list = []
    prev = ""
    for tok in _TOKEN.findall(text):
        c = tok[0]
        if c == "(":
            stack.append(cur)
            cur = []
        elif c == ")":
            if not stack:
                raise Fallback
            parent = stack.pop()
            parent.append(cur)
            cur = parent
        elif c == ";":
            # `at start`, `over all`, `at 5` are single terminals with only whitespace inside
            if prev.lower() in ("at", "over"):
                raise Fallback
        elif plain or tok.isascii():
            cur.append(tok)
        else:
            raise Fallback
        prev = tok
    if stack or len(cur) != 1 or not isinstance(cur[0], list):
        raise Fallback
    return cur[0]


# ---- atoms -------------------------------------------------------------------------------
_NAMES: dict[str, str | None] = {}  # token -> lower-cased name, None when not a usable name
_TERMS: dict[str, ast.Term | None] = {}


def _name(x) -> str:
    if x.__class__ is str:
        low = _NAMES.get(x, "")
        if low == "":
            low = x.lower() if _NAME.match(x) and x.lower() not in _KEYWORDS else None
            _memo(_NAMES, x, low)
        if low is not None:
            return low
    raise Fallback


def _memo(table: dict, key: str, value) -> None:
    if len(table) > 100_000:
        table.clear()
    table[key] = value


def _var(x) -> str:
    if isinstance(x, str) and _VAR.match(x):
        return x.lower()
    raise Fallback


_NUMBERS: dict[str, Fraction] = {}


def _number(x) -> Fraction:
    if x.__class__ is str:
        value = _NUMBERS.get(x)
        if value is not None:
            return value
        if _NUMBER.match(x):
            try:
                value = parse_decimal(x)
            except ValueError:  # beyond the length limit: the grammar reports it at its place
                raise Fallback from None
            _memo(_NUMBERS, x, value)
            return value
    raise Fallback


def _head(x: list) -> str:
    """The lower-cased first atom of a list (``""`` when there is none)."""
    return x[0].lower() if x and x[0].__class__ is str else ""


def _is(x, keyword: str) -> bool:
    return isinstance(x, str) and x.lower() == keyword


def _list(x) -> list:
    if x.__class__ is list:
        return x
    raise Fallback


def _term(x) -> ast.Term:
    if x.__class__ is str:
        term = _TERMS.get(x)
        if term is None:
            term = ast.Var(_var(x)) if x.startswith("?") else ast.Const(_name(x))
            _memo(_TERMS, x, term)
        return term
    raise Fallback


# ---- typed lists -------------------------------------------------------------------------
def _type_spec(x) -> tuple[str, ...]:
    if isinstance(x, list):
        if len(x) < 2 or not _is(x[0], "either"):
            raise Fallback
        return tuple(_name(n) for n in x[1:])
    return (_name(x),)


def _grouped(items: list, read_item, read_type) -> list[tuple]:
    """A flat ``a b - t c`` list as (item, type) pairs; the type is None where no ``- type`` follows."""
    out: list[tuple] = []
    pending: list = []
    i = 0
    while i < len(items):
        if items[i] == "-":
            if not pending or i + 1 == len(items):
                raise Fallback
            kind = read_type(items[i + 1])
            out += [(p, kind) for p in pending]
            pending = []
            i += 2
        else:
            pending.append(read_item(items[i]))
            i += 1
    return out + [(p, None) for p in pending]


def _typed(items: list, item) -> tuple[ast.Typed, ...]:
    return tuple(ast.Typed(n, t) if t else ast.Typed(n) for n, t in _grouped(items, item, _type_spec))


def _typed_vars(x) -> tuple[ast.Typed, ...]:
    return _typed(_list(x), _var)


# ---- numeric expressions -----------------------------------------------------------------
def _fexp(x) -> ast.NExpr:
    if isinstance(x, str):
        low = x.lower()
        if _NUMBER.match(x):
            return ast.Number(_number(x))
        if x.startswith("?"):
            name = _var(x)
            return ast.DurationVar() if name == "?duration" else ast.Var(name)
        if low == "#t":
            return ast.HashT()
        if low == "total-time":
            return ast.TotalTime()
        return ast.Const(_name(x))
    head = _head(x)
    if head in ("+", "-", "*", "/"):
        args = tuple(_numeric(_fexp(a)) for a in x[1:])
        if not args:
            raise Fallback
        if head == "-" and len(args) == 1:
            return ast.Neg(args[0])
        if (head in "-/" and len(args) != 2) or (head in "+*" and len(args) < 2):
            raise Fallback
        return ast.BinOp(head, args)
    if head == "total-time" and len(x) == 1:
        return ast.TotalTime()
    return _f_head(x)


def _f_head(x) -> ast.FuncTerm:
    x = _list(x)
    if not x:
        raise Fallback
    return ast.FuncTerm(_name(x[0]), tuple(_term(t) for t in x[1:]))


def _numeric(x: ast.NExpr) -> ast.NExpr:
    if isinstance(x, ast.Const):
        return ast.FuncTerm(x.name, ())
    if isinstance(x, ast.Var):
        raise Fallback
    return x


# ---- conditions --------------------------------------------------------------------------
def _atom(x) -> ast.Atom:
    if x.__class__ is not list or not x:
        raise Fallback
    return ast.Atom(_name(x[0]), tuple(map(_term, x[1:])))


def _gd(x) -> ast.Cond:
    x = _list(x)
    head = _head(x)
    n = len(x)
    if head == "not" and n == 2:
        return ast.Not(_gd(x[1]))
    if head == "and":
        return ast.And(tuple(_gd(g) for g in x[1:]))
    if head == "or":
        return ast.Or(tuple(_gd(g) for g in x[1:]))
    if head == "imply" and n == 3:
        return ast.Imply(_gd(x[1]), _gd(x[2]))
    if head in ("exists", "forall") and n == 3:
        cls = ast.Exists if head == "exists" else ast.Forall
        return cls(_typed_vars(x[1]), _gd(x[2]))
    if head in _COMP and n == 3:
        lhs, rhs = _fexp(x[1]), _fexp(x[2])
        if head == "=" and isinstance(lhs, (ast.Const, ast.Var)) and isinstance(rhs, (ast.Const, ast.Var)):
            return ast.Atom("=", (lhs, rhs))
        return ast.Compare(head, _numeric(lhs), _numeric(rhs))
    return _atom(x)


def _timed_when(x: list) -> str | None:
    """``at start`` / ``at end`` / ``over all`` heading `x`, normalised, or None."""
    if len(x) >= 2 and isinstance(x[0], str) and isinstance(x[1], str):
        a, b = x[0].lower(), x[1].lower()
        if a == "at" and b in _WHEN:
            return _WHEN[b]
        if a == "over" and b == "all":
            return ast.OVER_ALL
    return None


def _da_gd(x) -> ast.Cond:
    x = _list(x)
    head = _head(x)
    if head == "and":
        return ast.And(tuple(_da_gd(g) for g in x[1:]))
    if head == "forall" and len(x) == 3:
        return ast.Forall(_typed_vars(x[1]), _da_gd(x[2]))
    when = _timed_when(x)
    if when is None or len(x) != 3:
        raise Fallback
    return ast.TimedCond(when, _gd(x[2]))


def _or_empty(x, reader):
    return None if x == [] else reader(x)


# ---- effects -----------------------------------------------------------------------------
def _update(x: list) -> ast.Update:
    if len(x) != 3:
        raise Fallback
    target = x[1]
    fluent = _f_head(target) if isinstance(target, list) else ast.FuncTerm(_name(target), ())
    return ast.Update(x[0].lower(), fluent, _numeric(_fexp(x[2])))


def _compound(x: list, effect, cond) -> ast.Effect | None:
    """`and`, `forall`, `when` (over `effect` and `cond` readers) and updates; None for anything else."""
    head = _head(x)
    if head == "and":
        return ast.AndEffect(tuple(effect(e) for e in x[1:]))
    if head == "forall" and len(x) == 3:
        return ast.ForallEffect(_typed_vars(x[1]), effect(x[2]))
    if head == "when" and len(x) == 3:
        return ast.When(cond(x[1]), effect(x[2]))
    if head in _ASSIGN:
        return _update(x)
    return None


def _effect(x) -> ast.Effect:
    x = _list(x)
    out = _compound(x, _effect, _gd)
    if out is not None:
        return out
    if _head(x) == "not" and len(x) == 2:
        return ast.Delete(_atom(x[1]))
    return ast.Add(_atom(x))


def _da_effect(x) -> ast.Effect:
    x = _list(x)
    out = _compound(x, _da_effect, _da_gd)
    if out is not None:
        return out
    when = _timed_when(x)
    if when is None or when == ast.OVER_ALL or len(x) != 3:
        raise Fallback
    return ast.TimedEffect(when, _effect(x[2]))


# ---- operators ---------------------------------------------------------------------------
def _params_and_parts(x: list, start: int) -> tuple[tuple[ast.Typed, ...], list]:
    rest = x[start:]
    params: tuple[ast.Typed, ...] = ()
    if rest and _is(rest[0], ":parameters"):
        if len(rest) < 2:
            raise Fallback
        params, rest = _typed_vars(rest[1]), rest[2:]
    return params, rest


def _parts(rest: list, readers: dict) -> dict:
    if len(rest) % 2:
        raise Fallback
    out: dict = {}
    for key, body in zip(rest[::2], rest[1::2], strict=True):
        name = key.lower() if isinstance(key, str) else ""
        if name not in readers or name in out:
            raise Fallback
        out[name] = _or_empty(body, readers[name])
    return out


def _action(x: list) -> ast.Action:
    name = _name(x[1]) if len(x) > 1 else _name(None)
    params, rest = _params_and_parts(x, 2)
    parts = _parts(rest, {":precondition": _gd, ":effect": _effect})
    return ast.Action(name, params, parts.get(":precondition"), parts.get(":effect"))


def _duration_constraint(x, when: str | None) -> ast.DurationConstraint:
    x = _list(x)
    if len(x) != 3 or x[0] not in _DURATION_OPS or not isinstance(x[1], str) or x[1].lower() != "?duration":
        raise Fallback
    return ast.DurationConstraint(x[0], _fexp(x[2]), when)


def _one_duration(x) -> ast.DurationConstraint:
    x = _list(x)
    when = _timed_when(x)
    if when is not None and when != ast.OVER_ALL:
        if len(x) != 3:
            raise Fallback
        return _duration_constraint(x[2], when)
    return _duration_constraint(x, None)


def _duration(x) -> tuple[ast.DurationConstraint, ...]:
    x = _list(x)
    if not x:
        return ()
    if _head(x) == "and":
        return tuple(_one_duration(d) for d in x[1:])
    return (_one_duration(x),)


def _durative(x: list) -> ast.DurativeAction:
    name = _name(x[1]) if len(x) > 1 else _name(None)
    params, rest = _params_and_parts(x, 2)
    if len(rest) < 2 or not _is(rest[0], ":duration"):
        raise Fallback
    duration = _duration(rest[1])
    parts = _parts(rest[2:], {":condition": _da_gd, ":effect": _da_effect})
    return ast.DurativeAction(name, params, duration, parts.get(":condition"), parts.get(":effect"))


def _decl(x) -> tuple[str, tuple[ast.Typed, ...]]:
    """``(NAME ?v - type ...)``: a predicate, function or derived-predicate head."""
    x = _list(x)
    if not x:
        raise Fallback
    return _name(x[0]), _typed(x[1:], _var)


def _functions(items: list) -> tuple[ast.Function, ...]:
    return tuple(ast.Function(*decl, t) if t else ast.Function(*decl) for decl, t in _grouped(items, _decl, _name))


def _requirements(x: list) -> tuple[str, ...]:
    out = []
    for r in x[1:]:
        if not isinstance(r, str) or not _REQ.match(r):
            raise Fallback
        out.append(r.lower())
    return tuple(out)


def _define(tree: list, kind: str) -> tuple[str, list]:
    """`(define (KIND NAME) ...)`: NAME and the items."""
    if len(tree) < 2 or not _is(tree[0], "define"):
        raise Fallback
    header = _list(tree[1])
    if len(header) != 2 or not _is(header[0], kind):
        raise Fallback
    name = header[1]
    if not isinstance(name, str) or not _NAME.match(name):
        raise Fallback
    return name.lower(), tree[2:]


def read_domain_text(text: str) -> ast.Domain:
    """The domain in `text`; :class:`Fallback` when the fast reader cannot vouch for it."""
    name, items = _define(sexpr(text), "domain")
    fields: dict = {"requirements": (), "types": (), "constants": (), "predicates": (), "functions": ()}
    operators: list = []
    derived: list = []
    for item in items:
        item = _list(item)
        head = _head(item)
        if head == ":requirements":
            fields["requirements"] += _requirements(item)
        elif head == ":types":
            fields["types"] += _typed(item[1:], _name)
        elif head == ":constants":
            fields["constants"] += _typed(item[1:], _name)
        elif head == ":predicates":
            fields["predicates"] += tuple(ast.Predicate(*_decl(p)) for p in item[1:])
        elif head == ":functions":
            fields["functions"] += _functions(item[1:])
        elif head == ":action":
            operators.append(_action(item))
        elif head == ":durative-action":
            operators.append(_durative(item))
        elif head == ":derived" and len(item) == 3:
            derived.append(ast.Derived(*_decl(item[1]), _gd(item[2])))
        else:
            raise Fallback
    return ast.Domain(name, operators=tuple(operators), derived=tuple(derived), **fields)


# ---- problems ----------------------------------------------------------------------------
_GROUND: dict[tuple, ast.Atom] = {}


def _ground_atom(x) -> ast.Atom:
    """A ground atom ``(p a b)`` of the initial state (memoised: problems of a family repeat them)."""
    if x.__class__ is not list or not x:
        raise Fallback
    key = tuple(x)
    try:
        atom = _GROUND.get(key)
    except TypeError:  # a list among the arguments
        raise Fallback from None
    if atom is None:
        for t in x:
            if t.__class__ is not str or t[0] == "?":
                raise Fallback
        atom = ast.Atom(_name(x[0]), tuple(map(_term, x[1:])))
        _memo(_GROUND, key, atom)
    return atom


def _fluent_init(x: list) -> ast.FluentInit:
    if len(x) != 3 or x[1].__class__ is not list:
        raise Fallback
    fluent = _f_head(x[1])
    if any(isinstance(t, ast.Var) for t in fluent.args):
        raise Fallback
    return ast.FluentInit(fluent, _number(x[2]))


def _til_item(x) -> ast.Atom | ast.Not | ast.FluentInit:
    head = _head(_list(x))
    if head == "not" and len(x) == 2:
        return ast.Not(_ground_atom(x[1]))
    if head == "=":
        return _fluent_init(x)
    return _ground_atom(x)


def _init_item(x) -> ast.InitItem:
    head = _head(_list(x))
    if head == "at" and len(x) >= 2 and x[1].__class__ is str and x[1][0] in "-.0123456789":
        if len(x) != 3:
            raise Fallback
        return ast.TimedInit(_number(x[1]), _til_item(x[2]))
    if head == "not" or head == "=":
        return _til_item(x)
    return _ground_atom(x)


def read_problem_text(text: str) -> ast.Problem:
    """The problem in `text`; :class:`Fallback` when the fast reader cannot vouch for it."""
    name, items = _define(sexpr(text), "problem")
    if not items:
        raise Fallback
    dom = _list(items[0])
    if len(dom) != 2 or not _is(dom[0], ":domain") or not isinstance(dom[1], str) or not _NAME.match(dom[1]):
        raise Fallback
    fields: dict = {}
    for item in items[1:]:
        item = _list(item)
        head = _head(item)
        if head == ":requirements":
            fields["requirements"] = fields.get("requirements", ()) + _requirements(item)
            continue
        key = {":objects": "objects", ":init": "init", ":goal": "goal", ":metric": "metric"}.get(head)
        if key is None or key in fields:
            raise Fallback
        if key == "objects":
            fields[key] = _typed(item[1:], _name)
        elif key == "init":
            fields[key] = tuple(_init_item(i) for i in item[1:])
        elif key == "goal":
            if len(item) != 2:
                raise Fallback
            fields[key] = _or_empty(item[1], _gd)
        else:
            if len(item) != 3 or _head(item[1:]) not in ("minimize", "maximize"):
                raise Fallback
            fields[key] = ast.Metric(item[1].lower(), _numeric(_fexp(item[2])))
    return ast.Problem(name, dom[1].lower(), **fields)
