"""Findings decided by a workload: what a recorded run (``zlint record``) says of each finding.

Without a workload zlint reports what costs *if* the sizes a line reads vary. A recording knows
which lines ran and which sizes each function's tensors held, so under one:

* a finding on a line the recording never ran is hidden (the run notes how many), and so is one
  in a file the recording never loaded;
* a size finding whose sizes (:attr:`~zlint.core.diagnostics.Diagnostic.reads`, from the facts'
  origins) all held one value in every recorded call is hidden: that size is constant in this
  deployment, and dynamo specializes a constant once, for free;
* a size finding on a size that varied keeps its place and says why it varies (the sizes seen,
  and the function they were recorded in); a single-graph finding on a size the recording saw
  at 0 or 1 is default tier, since the deployment itself feeds dynamo the sizes it specializes;
* a threshold on one size (``x.shape[0] >= 64``) that every recorded size answers the same way
  moves to the single-graph tier: the guard holds for the whole deployment and adds no graph,
  but under ``mark_unbacked`` the test itself still breaks the graph;
* a finding whose sizes the recording cannot see (a size of ``self.cache``, of a tensor the
  function rebinds) stays as it is: the recording has no say on it.

Findings of rules that are not about compiled code (compile calls, configuration, ``noqa``) are
left alone. The module reads the workload file's records only (no torch).
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Iterable
from dataclasses import dataclass

from zlint.core.diagnostics import Diagnostic

# the origins' dim spellings (zlint.facts.lattice.Fact.origin): an index, or every dim
ALL_DIMS = "*"


@dataclass(frozen=True)
class SizeRecord:
    """What a recording saw of one size origin: the distinct sizes, and where it saw them."""

    origin: str
    sizes: tuple[int, ...]
    where: str

    @property
    def varies(self) -> bool:
        return len(self.sizes) > 1

    @property
    def reaches_zero_or_one(self) -> bool:
        return any(n in (0, 1) for n in self.sizes)

    def describe(self) -> str:
        name, _, dim = self.origin.partition(":")
        # numel(): the recording keeps sizes per dim, so it names the dims' sizes
        what = f"the dims of `{name}`" if dim == ALL_DIMS else f"`{name}.size({dim})`"
        if len(self.sizes) <= 6:
            seen = ", ".join(str(n) for n in self.sizes)
        else:
            seen = f"{self.sizes[0]}..{self.sizes[-1]} ({len(self.sizes)} sizes)"
        return f"{what} recorded {seen} in {self.where}"


@dataclass
class Decided:
    """The findings a workload keeps, and how many it hid, by why."""

    diagnostics: list[Diagnostic]
    not_loaded: int = 0
    not_run: int = 0
    constant: int = 0
    never_crossed: int = 0
    #: what it hid, each with why (``Diagnostic.hidden``)
    hidden: list[Diagnostic] = dataclasses.field(default_factory=list)

    def notes(self, source: str) -> list[str]:
        out = []
        for count, why in (
            (self.not_run, "on lines the workload never ran"),
            (self.not_loaded, "in files the workload never loaded"),
            (self.constant, "on sizes the workload held constant"),
        ):
            if count:
                out.append(f"{count} finding{'' if count == 1 else 's'} hidden {why} ({source})")
        if self.never_crossed:
            count = self.never_crossed
            out.append(
                f"{count} finding{'' if count == 1 else 's'} on thresholds the workload's sizes never crossed "
                f"moved to the single-graph tier ({source})"
            )
        return out


def decide(diagnostics: Iterable[Diagnostic], workload, about_compiled_code) -> Decided:
    """The findings ``workload`` (a :class:`zlint.workload.model.Workload`) keeps, each with the
    reason its sizes vary, and those it hides, each with why; ``about_compiled_code(code)``:
    whether a rule's findings depend on the code running compiled (only those are the workload's
    to decide). A finding it moves to the single-graph tier is kept: the ``target`` setting, after
    it, decides whether that tier is shown (:func:`zlint.scope.placement.place_counted`)."""
    decided = Decided([])
    for d in diagnostics:
        if not about_compiled_code(d.code):
            decided.diagnostics.append(d)
            continue
        if workload.recorded(d.path) is None:
            decided.not_loaded += 1
            decided.hidden.append(dataclasses.replace(d, hidden="the workload never loaded this file"))
            continue
        if not any(workload.ran(d.path, line) for line in range(d.line, max(d.line, d.end_line) + 1)):
            decided.not_run += 1
            decided.hidden.append(dataclasses.replace(d, hidden="the workload never ran this line"))
            continue
        records, unseen = sizes_of(d, workload)
        if records and not unseen and not any(r.varies for r in records):
            decided.constant += 1
            held = "; ".join(r.describe() for r in records)
            decided.hidden.append(dataclasses.replace(d, hidden=f"the workload held the sizes constant: {held}"))
            continue
        if d.threshold and len(records) == 1 and not unseen and _never_flips(d.threshold, records[0].sizes):
            # `x.shape[0] >= 64` with batches of 2..8: the guard holds on every size the
            # deployment sends, so it adds no graph; under mark_unbacked the test itself still
            # breaks the graph (measured on the shared workloads: diffusers' Upsample2D)
            decided.never_crossed += 1
            decided.diagnostics.append(dataclasses.replace(
                d,
                tier="single-graph",
                message=f"{d.message} [workload: {records[0].describe()}: never crosses the threshold, "
                "so it costs only where sizes are made one graph]",
            ))
            continue
        varying = [r for r in records if r.varies]
        if varying:
            d = dataclasses.replace(
                d,
                message=f"{d.message} [workload: {'; '.join(r.describe() for r in varying)}]",
                tier="default" if any(r.reaches_zero_or_one for r in varying) else d.tier,
            )
        decided.diagnostics.append(d)
    return decided


_COMPARE = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


def _never_flips(threshold: str, sizes: tuple[int, ...]) -> bool:
    """Whether ``size <op> value`` (``">=64"``) has one answer for every recorded size, when the
    value is no 0/1 test (those cost through the sizes dynamo specializes, not through a flip)."""
    symbol = threshold[:2] if threshold[:2] in _COMPARE else threshold[:1]
    try:
        value = float(threshold[len(symbol):])
    except ValueError:
        return False
    if value in (0, 1) or not sizes:
        return False
    return len({_COMPARE[symbol](size, value) for size in sizes}) == 1


def sizes_of(d: Diagnostic, workload) -> tuple[list[SizeRecord], int]:
    """The recorded sizes of each origin ``d`` reads, and how many origins the recording has no
    record of."""
    records: list[SizeRecord] = []
    unseen = 0
    functions = _functions_named(workload, d.path, d.function) if d.function else []
    for origin in d.reads.split():
        origin = _unconditional(origin, d.path, workload)
        record = _record_of(origin, functions) if origin is not None else None
        if record is None:
            unseen += 1
        else:
            records.append(record)
    return records, unseen


def _unconditional(origin: str, path: str, workload) -> str | None:
    """``origin`` as a parameter's dim (``"x:0"``), or None: a conditional one (``"x?12,15:0"``:
    the parameter's only where none of the statements on those lines, which bind ``x``, ran,
    :data:`zlint.facts.lattice.CONDITIONAL`) when the recording ran one of them."""
    name, sep, dim = origin.partition(":")
    name, conditional, lines = name.partition("?")
    if not conditional:
        return origin
    if not lines or any(workload.ran(path, int(line)) for line in lines.split(",") if line.isdigit()):
        return None
    return f"{name}{sep}{dim}"


def _functions_named(workload, path: str, function: str) -> list:
    """The recorded functions of the file whose qualified name is ``function`` (Python's
    ``f.<locals>.g`` is zlint's ``f.g``); several where the file defines it more than once."""
    record = workload.recorded(path)
    if record is None:
        return []
    return [f for f in record.functions if f.name.replace(".<locals>", "") == function]


def _record_of(origin: str, functions) -> SizeRecord | None:
    """The sizes recorded for ``origin`` (``"x:0"``) over every recorded function of that name
    (a method defined twice, a function redefined under a condition)."""
    name, _, dim = origin.partition(":")
    sizes: set[int] = set()
    where = ""
    for function in functions:
        param = function.param(name)
        found = _dim_sizes(param, dim) if param is not None else None
        if found is None:
            continue
        sizes.update(found)
        where = where or f"{function.name} (line {function.line}, {function.calls} calls)"
    if not where:
        return None
    return SizeRecord(origin, tuple(sorted(sizes)), where)


def _dim_sizes(param, dim: str) -> set[int] | None:
    """The sizes one recorded parameter held in ``dim``: an int parameter's own values, the
    length of a list of tensors (``len(boxes)``), a tensor dim's sizes; ``*`` (``numel()``): the
    sizes of the dims that varied, or the one element count when none did."""
    if param.kind == "int":
        return set(param.values)
    if param.kind == "sequence" and dim == "0":
        return set(param.lengths)
    if param.kind != "tensor" or not param.dims:
        return None
    if dim == ALL_DIMS:
        varying = [set(sizes) for sizes in param.dims if len(sizes) > 1]
        if varying:
            return set().union(*varying)
        total = 1
        for sizes in param.dims:
            total *= sizes[0] if sizes else 1
        return {total}
    try:
        found = param.sizes(int(dim))
    except ValueError:
        return None
    return set(found) if found else None


#: recorded sizes a ``--verify`` sweep takes at most (the smallest, the largest, spread between)
SWEEP_RECORDED = 6


def recorded_sweep(workload, path: str, function: str) -> list[int] | None:
    """The sizes ``--verify`` sweeps ``function`` of ``path`` over under a workload: the sizes its
    recorded calls saw in each tensor dim (and list length) that varied, at most
    :data:`SWEEP_RECORDED` of them spread from the smallest to the largest, with 2 first where the
    recording did not see it (the first size dynamo takes as symbolic), then 1 and 0 (the sizes
    it specializes), as the default sweep orders them. None when the recording has the function
    but nothing of it varied, or does not have it: the default sweep stands then."""
    seen: set[int] = set()
    for recorded in _functions_named(workload, path, function):
        for param in recorded.params.values():
            for record in (param, *param.keys.values()):
                if record.kind == "sequence" and len(record.lengths) > 1:
                    seen.update(record.lengths)
                    record = record.items
                if record is not None and record.kind == "tensor":
                    seen.update(size for sizes in record.dims if len(sizes) > 1 for size in sizes)
    if not seen:
        return None
    ordered = sorted(n for n in seen if n >= 2)
    if len(ordered) > SWEEP_RECORDED:
        last = len(ordered) - 1
        ordered = sorted({ordered[round(i * last / (SWEEP_RECORDED - 1))] for i in range(SWEEP_RECORDED)})
    return [*((2,) if 2 not in ordered else ()), *ordered, 1, 0]
