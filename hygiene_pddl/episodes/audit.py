"""Audit of data families (issue 13): what a family file's designs yield, solved, before they enter a build.

``hygiene-pddl families check NAME...`` expands every design of each family, solves each distinct instance
with Hygiene-NSP, and reports what an author needs to see: feasibility and whether it is proved, the plan's
length, treatments and overlap, and whether every pair behaves as its design claims (the admission's checks,
:func:`hygiene_pddl.episodes.reference.admit_pair`, on Hygiene-NSP's plans). Nothing here is certification: the
build certifies by two methods; this is the author's quick look.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hygiene_pddl.episodes.builder import realise
from hygiene_pddl.episodes.designs import family_designs
from hygiene_pddl.episodes.reference import Certified, admit_pair
from hygiene_pddl.errors import InputError
from hygiene_pddl.instances.loader import instance_from_data
from hygiene_pddl.planners.base import ChosenStep, PlanStatus
from hygiene_pddl.registries import Registries
from hygiene_pddl.replay import replay

TREATING = "treats"


def treatments(reg: Registries, steps: tuple[ChosenStep, ...]) -> list[str]:
    """The plan's treatment steps, as ``name args`` (actions whose registry entry treats something)."""
    return [" ".join((s.name, *s.args)) for s in sorted(steps, key=lambda s: (s.start, s.order))
            if reg.actions[s.name].treats]


def overlaps(steps: tuple[ChosenStep, ...]) -> bool:
    """Whether two actions of the plan run at the same time (two grippers, or a process beside them)."""
    spans = sorted((s.start, s.start + s.duration) for s in steps)
    return any(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))


@dataclass
class DraftReport:
    key: str
    instance: str
    status: str
    proved: bool
    length: int
    treatments: list[str]
    overlap: bool
    cost: dict | None
    seconds: float
    notes: list[str] = field(default_factory=list)
    steps_text: str = ""  # the plan's actions, without times (general profile pairs with one plan are reported)
    violation: bool = False  # the replayed history holds a hygiene violation (only a prior draft may)


@dataclass
class FamilyReport:
    family: str
    designs: list[str]
    drafts: dict[str, DraftReport]
    claims: list[tuple[str, str, str, str, str]]  # (design, kind, label, a/b, failure or "")
    error: str = ""
    #: general profile pairs whose two profiles get the same plan: no claim fails, but the pair tests nothing
    #: a single profile would not (issue 13 asks for them to be reported)
    same_plan_pairs: list[str] = field(default_factory=list)
    #: for the gates preview (not in the JSON report): each answered draft as a gates Case, and signatures
    cases: list = field(default_factory=list)
    domain_signature: str = ""
    instance_signatures: list[str] = field(default_factory=list)


def audit_family(reg: Registries, name: str, time_limit: float = 10.0) -> FamilyReport:
    from hygiene_pddl.planners.nsp import HygieneNSP

    fam = reg.families[name]
    designs = family_designs(reg, fam)
    solved: dict[str, tuple[object, Certified, DraftReport]] = {}
    publics: dict[str, tuple] = {}  # digest -> (instance, certified, report, public data) of answered drafts
    claims = []
    same: set[str] = set()  # general profile pairs whose two profiles get the same plan
    for arch, design in designs.items():
        try:
            episodes = realise(reg, name, arch, design)
        except InputError as exc:
            return FamilyReport(name, sorted(designs), {}, [], f"{arch}: {exc}")
        by_key = {}
        for ep in episodes:
            data = ep.public(reg)
            digest = repr(sorted((k, repr(v)) for k, v in data.items() if k not in ("id",)))
            if digest not in solved:
                inst = instance_from_data(data, reg, ep.id)
                t0 = time.perf_counter()
                res = HygieneNSP().solve(inst, time_limit, reg)
                secs = time.perf_counter() - t0
                cert = Certified(inst.id, res.status is PlanStatus.PLAN, res.cost, res.steps, res.plan_text, ())
                rep = DraftReport(ep.id.rsplit("-", 1)[-1], ep.id, res.status.value, res.proved_optimal,
                                  len(res.steps), treatments(reg, res.steps), overlaps(res.steps),
                                  res.cost.as_dict() if res.cost else None, round(secs, 3), list(res.notes),
                                  "; ".join(sorted(" ".join((s.name, *s.args)) for s in res.steps)),
                                  bool(replay(inst, reg).violations))
                solved[digest] = (inst, cert, rep)
                if res.status in (PlanStatus.PLAN, PlanStatus.INFEASIBLE):  # infeasible = proved
                    publics[digest] = (inst, cert, rep, data)
            by_key[ep.id] = solved[digest]
        prior = {ep.id for ep in episodes if ep.reference["design"]["prior_violation"]}
        for ep in episodes:
            claims += _design_claims(arch, ep, by_key[ep.id][2])
            for p in ep.reference["design"]["pairs"]:
                # a pair with a prior-violation member carries no behavioural claim (paper eqs. 3-4), as in admission
                if ep.id < p["with"] and not {ep.id, p["with"]} & prior:
                    a, b = by_key[ep.id], by_key[p["with"]]
                    open_ = [i for i, x in ((ep.id, a), (p["with"], b)) if x[2].status == PlanStatus.UNDETERMINED.value]
                    if open_:  # nothing is known about the pair: it is not a claim that holds
                        claims.append((arch, p["kind"], p["label"], f"{ep.id} / {p['with']}",
                                       f"not judged: {', '.join(open_)} undetermined (raise --time-limit)"))
                        continue
                    try:
                        why = admit_pair(reg, p["kind"], p["label"], (a[0], a[1]), (b[0], b[1]))
                    except InputError as exc:  # one member's plan does not read on the other's instance
                        why = f"the pair's swap check cannot read a plan: {exc}"
                    if not why and p["kind"] == "history" and p["label"] == "relevant" and \
                            a[2].treatments == b[2].treatments:
                        why = "the relevant pair's plans have the same treatments in the same order"
                    claims.append((arch, p["kind"], p["label"], f"{ep.id} / {p['with']}", why))
                    if p["kind"] == "profile" and p["label"] == "general" and a[1].feasible and \
                            a[2].steps_text == b[2].steps_text:
                        same.add(f"{ep.id} / {p['with']}")
    drafts = {rep.instance: rep for _, _, rep in solved.values()}
    out = FamilyReport(name, sorted(designs), drafts, claims, same_plan_pairs=sorted(same))
    _add_structure(reg, out, [(inst, cert, data) for inst, cert, _, data in publics.values()])
    return out


def _design_claims(arch: str, ep, rep: DraftReport) -> list[tuple[str, str, str, str, str]]:  # noqa: ANN001
    """What a draft's design says of it alone: feasible or (designed) infeasible, and whether its history holds a
    violation (a ``prior`` draft) or not. Checked once per draft and archetype, like the pair claims."""
    design = ep.reference["design"]
    out = []
    want = "infeasible" if design["expect_infeasible"] else "plan"
    if rep.status == PlanStatus.UNDETERMINED.value:
        why = f"not judged: {ep.id} undetermined (raise --time-limit)"
    else:
        why = "" if rep.status == want else f"designed {'in' * (want == 'infeasible')}feasible, but {rep.status}"
    out.append((arch, "draft", "infeasible" if want == "infeasible" else "feasible", ep.id, why))
    if rep.violation != design["prior_violation"]:
        why = ("a prior draft whose history holds no violation" if design["prior_violation"] else
               "the history holds a violation but the draft is not a prior draft")
        out.append((arch, "draft", "prior", ep.id, why))
    return out


def _add_structure(reg: Registries, rep: FamilyReport, answered: list) -> None:
    """The gates' view of the family: a Case per answered draft (a plan, or a proved infeasibility) and the
    renaming-invariant signatures of its compiled domain and problems."""
    from compiler.render import render_domain, render_problem
    from hygiene_pddl.episodes.gates import case_of
    from hygiene_pddl.episodes.structure import signature
    from hygiene_pddl.pddl.parser import parse_domain, parse_problem

    rep.domain_signature = signature(parse_domain(render_domain(reg, rep.family)))
    for inst, cert, data in answered:
        steps = ((s.start, s.duration, s.name, tuple(s.args)) for s in cert.steps)
        rep.cases.append(case_of(data, rep.family, cert.feasible, steps, cert.cost.as_dict() if cert.cost else {}))
        rep.instance_signatures.append(rep.domain_signature + signature(parse_problem(render_problem(reg, inst)[0])))


def report_text(rep: FamilyReport) -> str:
    lines = [f"family {rep.family}: designs {', '.join(rep.designs)}"]
    if rep.error:
        return "\n".join([*lines, f"  error: {rep.error}"])
    for d in rep.drafts.values():
        cost = " ".join(f"{k}={v}" for k, v in (d.cost or {}).items() if v)
        lines.append(f"  {d.instance}: {d.status}{' (proved)' if d.proved else ''}, {d.length} actions, "
                     f"{len(d.treatments)} treatment(s){', overlapping' if d.overlap else ''}, {d.seconds} s"
                     + (f"; {cost}" if cost else ""))
        if d.treatments:
            lines.append(f"    treatments: {'; '.join(d.treatments)}")
    bad = [c for c in rep.claims if c[4]]
    lines.append(f"  claims: {len(rep.claims) - len(bad)} of {len(rep.claims)} hold")
    if rep.same_plan_pairs:
        lines.append(f"  general profile pairs with one plan for both profiles: {len(rep.same_plan_pairs)}")
    lines += [f"    {arch} {kind}/{label} {pair}: {why}" for arch, kind, label, pair, why in bad]
    return "\n".join(lines)


def _source_digest() -> str:
    """The registries' files and the package's code: a cached report is reused only if neither changed."""
    import hashlib

    from hygiene_pddl.registries.loader import default_data_dir

    h = hashlib.sha256()
    for root, pattern in ((default_data_dir(), "*.yaml"), (Path(__file__).resolve().parents[1], "*.py")):
        for f in sorted(root.rglob(pattern)):
            h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def _audit_job(job: tuple[str, float]) -> FamilyReport:
    from hygiene_pddl.registries import load_registries

    return audit_family(load_registries(), *job)


def audit_families(reg: Registries, names: list[str], time_limit: float = 10.0, jobs: int = 1,
                   cache: Path | None = None, log: Callable[[str], None] | None = None) -> list[FamilyReport]:
    """Audit several families, ``jobs`` at a time (forked workers), in the order given. With ``cache`` (a folder),
    each finished report is kept there, so an interrupted run resumes where it stopped; a kept report is reused
    only for the same time limit, registries and code."""
    import pickle
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    folder = Path(cache) if cache is not None else None
    key = f"{_source_digest()}/{time_limit!r}" if folder else ""
    done: dict[str, FamilyReport] = {}
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
        for n in names:
            f = folder / f"{n}.pkl"
            if f.exists():
                kept = pickle.loads(f.read_bytes())
                if kept.get("key") == key:
                    done[n] = kept["report"]

    def finish(n: str, rep: FamilyReport) -> None:
        done[n] = rep
        if folder:
            tmp = folder / f"{n}.pkl.tmp"
            tmp.write_bytes(pickle.dumps({"key": key, "report": rep}))
            tmp.replace(folder / f"{n}.pkl")
        if log:
            log(f"[{len(done)}/{len(names)}] {n}: {len(rep.drafts)} drafts, "
                f"{sum(d.seconds for d in rep.drafts.values()):.1f} s")

    todo = [n for n in names if n not in done]
    if done and log:
        log(f"{len(done)} of {len(names)} families from {folder}")
    if jobs <= 1 or len(todo) <= 1:
        for n in todo:
            finish(n, audit_family(reg, n, time_limit))
    else:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
            futures = {pool.submit(_audit_job, (n, time_limit)): n for n in todo}
            for fut in as_completed(futures):
                finish(futures[fut], fut.result())
    return [done[n] for n in names]
