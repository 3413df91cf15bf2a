"""What ``--verify`` observed, as plain data (no torch): picklable, JSON-able, comparable.

A worker sends a :class:`FunctionReport` back as a dict; the CLI and the Python API read it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field

#: The modes, weakest first: the first one in which an effect shows is the one reported.
MODES = ("default", "backed_size_oblivious", "mark_unbacked")

CONFIRMED = "CONFIRMED"
NOT_OBSERVED = "NOT OBSERVED"
UNVERIFIABLE = "UNVERIFIABLE"
#: a guard was installed at the line but added no graph, break or error: no cost observed
GUARDED = "GUARDED"

#: evidence kinds
GUARD = "guard"  # a shape guard installed at a line (``Ne(s0, 1)``)
SPECIALIZATION = "specialization"  # a guard that pins a size to one value (``Eq(s0, 3)``)
GRAPH_BREAK = "graph-break"
RECOMPILE = "recompile"  # a guard failure at a line made dynamo compile again
DATA_DEPENDENT = "data-dependent-error"
CONSTRAINT = "constraint-violation"
COMPILE_ERROR = "compile-error"  # compiled call raised where eager did not
MISMATCH = "mismatch"  # compiled output differs from eager output

#: kinds that are a problem on their own, whatever the graph count
SEVERE = frozenset({SPECIALIZATION, GRAPH_BREAK, RECOMPILE, DATA_DEPENDENT, CONSTRAINT, COMPILE_ERROR, MISMATCH})


@dataclass
class Evidence:
    """One observation. ``line`` is None when dynamo did not name a line of the verified file."""

    kind: str
    mode: str
    line: int | None
    sizes: list[int] = field(default_factory=list)
    detail: str = ""
    #: raised inside a torch op (meta function, decomposition), not by the user's own branch
    inside_torch: bool = False
    #: call-site evidence: the line of the ``torch.compile`` that made the object called at ``line``
    origin: int | None = None

    def describe(self) -> str:
        where = f"line {self.line}" if self.line else "no line"
        sizes = ",".join(map(str, self.sizes))
        return f"{self.kind} [{self.mode}] at {where}, size {sizes}: {self.detail}"


@dataclass
class ModeRun:
    """One compile-and-sweep of one mode."""

    mode: str
    graphs: int = 0  # graphs compiled over the sweep
    baseline: int = 0  # graphs a trivial function costs over the same sweep and mode
    sizes_run: list[int] = field(default_factory=list)
    skipped: str = ""  # why the mode was not run
    #: sizes at which even the trivial function failed to compile: its count is no baseline then
    baseline_failed: list[int] = field(default_factory=list)
    graph_sizes: list[int] = field(default_factory=list)  # the swept size at which each graph compiled
    names: dict[str, str] = field(default_factory=dict)  # size symbol -> user-level name

    @property
    def extra_graphs(self) -> int:
        """Graphs beyond the baseline; 0 when the baseline itself did not compile at every size."""
        if self.baseline_failed:
            return 0
        return max(0, self.graphs - self.baseline)


@dataclass
class FunctionReport:
    """Everything ``--verify`` learned about one function."""

    target: str  # ``path::Qual.name`` or the function's qualified name
    path: str = ""
    first_line: int = 0
    last_line: int = 0
    inputs: str = ""  # where the inputs came from: registered / annotations / synthesized / given
    input_detail: str = ""
    sizes: list[int] = field(default_factory=list)
    backend: str = ""
    device: str = ""
    runs: list[ModeRun] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    eager_errors: dict[int, str] = field(default_factory=dict)
    unverifiable: str = ""  # non-empty: nothing could be verified, and why
    seconds: float = 0.0
    #: flagged lines whose size comparison the synthesized sweep may never flip, and why
    open_thresholds: dict[int, str] = field(default_factory=dict)
    #: flagged lines outside the verified function (in helpers) that no eager call reached
    unreached: list[int] = field(default_factory=list)
    #: a registered example's inputs as text (:func:`zlint.verify.sandbox.example_text.describe`):
    #: where an UNVERIFIABLE finding's ``register:`` stub starts
    registered_inputs: dict = field(default_factory=dict)

    # -- reading it -------------------------------------------------------------------------
    @property
    def verified(self) -> bool:
        return not self.unverifiable

    def graphs(self, mode: str = "default") -> int:
        """Graphs compiled over the sweep in ``mode`` (0 when the mode did not run)."""
        return next((r.graphs for r in self.runs if r.mode == mode), 0)

    def at(self, line: int, end_line: int | None = None) -> list[Evidence]:
        """Evidence attributed to ``line`` (or to any line of ``line..end_line``)."""
        last = end_line or line
        return [e for e in self.evidence if e.line is not None and line <= e.line <= last]

    def of_kind(self, *kinds: str) -> list[Evidence]:
        return [e for e in self.evidence if e.kind in kinds]

    @property
    def guards(self) -> list[Evidence]:
        return self.of_kind(GUARD, SPECIALIZATION)

    @property
    def graph_breaks(self) -> list[Evidence]:
        return self.of_kind(GRAPH_BREAK)

    @property
    def mismatches(self) -> list[Evidence]:
        return self.of_kind(MISMATCH)

    def weakest_mode(self, line: int, end_line: int | None = None) -> str | None:
        modes = {e.mode for e in self.at(line, end_line)}
        return next((m for m in MODES if m in modes), None)

    def status_at(self, line: int, end_line: int | None = None) -> str:
        if self.unverifiable:
            return UNVERIFIABLE
        return CONFIRMED if self.at(line, end_line) else NOT_OBSERVED

    def summary(self) -> str:
        if self.unverifiable:
            return f"{self.target}: UNVERIFIABLE: {self.unverifiable}"
        runs = ", ".join(f"{r.mode} {r.graphs} graphs (baseline {r.baseline})" for r in self.runs if not r.skipped)
        return f"{self.target}: {runs}; {len(self.evidence)} observations"

    # -- transport --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        data = asdict(self)
        data["eager_errors"] = {str(k): v for k, v in self.eager_errors.items()}
        data["open_thresholds"] = {str(k): v for k, v in self.open_thresholds.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> FunctionReport:
        data = dict(data)
        data["runs"] = [ModeRun(**r) for r in data.get("runs", [])]
        data["evidence"] = [Evidence(**e) for e in data.get("evidence", [])]
        data["eager_errors"] = {int(k): v for k, v in data.get("eager_errors", {}).items()}
        data["open_thresholds"] = {int(k): v for k, v in data.get("open_thresholds", {}).items()}
        return cls(**data)


_RELATION = {"Eq": "==", "Ne": "!=", "Lt": "<", "Le": "<=", "Gt": ">", "Ge": ">="}
_CALL = re.compile(r"^(Eq|Ne|Lt|Le|Gt|Ge)\((.*)\)$")
_SYMBOL = re.compile(r"\b[su]\d+\b")


def _split_args(inner: str) -> list[str]:
    depth, parts, start = 0, [], 0
    for i, ch in enumerate(inner):
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    return parts


def plain_guard(expr: str, names: dict[str, str]) -> str:
    """A sympy guard with its plain reading: ``Eq(s77, 1)`` -> ``Eq(s77, 1), i.e. x.size(0) == 1``.
    Symbols without a known name stay as they are; the sympy text is kept for TORCH_LOGS users."""
    named = _SYMBOL.sub(lambda m: names.get(m.group(0), m.group(0)), expr)
    if named == expr:
        return expr  # nothing named: a rewrite of the sympy alone would not read plainer
    found = _CALL.match(named)
    if found:
        args = _split_args(found.group(2))
        if len(args) == 2:
            named = f"{args[0]} {_RELATION[found.group(1)]} {args[1]}"
    return expr if named == expr else f"{expr}, i.e. {named}"


#: backed_size_oblivious assumes sizes >= 2: on torch 2.13 some ops fail to compile at size 0/1
UNSOUND_MODE = "backed_size_oblivious"


def is_mode_caveat(e: Evidence) -> bool:
    """Effects that say a single-graph mode does not fit torch's own ops here, not that the code
    branches on sizes: a compile failure at size 0/1 under backed_size_oblivious (torch 2.13 fails
    on ``split``, 3-D views and SDPA there) and data-dependent guards raised inside torch ops under
    mark_unbacked/backed_size_oblivious. Reported as caveats; wrong results never are."""
    if e.kind == MISMATCH:
        return False
    if e.inside_torch and e.kind in (GUARD, SPECIALIZATION, RECOMPILE):
        return True  # a 0/1 pin inside matmul/bmm/group_norm/t(): the op's, not the user's line
    if e.mode == "default":
        return False
    if e.mode == UNSOUND_MODE and e.kind == COMPILE_ERROR and set(e.sizes) <= {0, 1}:
        return True
    return e.kind in (GRAPH_BREAK, DATA_DEPENDENT, COMPILE_ERROR) and e.inside_torch


def costly(e: Evidence, report: FunctionReport) -> bool:
    """Evidence that costs something: anything but a plain guard, and a plain guard only in a
    mode that compiled more graphs than a trivial function (whose baseline compiled everywhere)
    when no recompile or pinned size at another line explains those graphs."""
    if e.kind != GUARD:
        return True
    if not any(r.mode == e.mode and not r.skipped and r.extra_graphs for r in report.runs):
        return False
    return not any(
        x.mode == e.mode and x.kind in (RECOMPILE, SPECIALIZATION) and x.line is not None and x.line != e.line
        and not x.inside_torch
        for x in report.evidence
    )


def evidence_dicts(evidence: list[Evidence], limit: int = 8) -> list[dict]:
    """The evidence as JSON objects, most telling first (mode, then kind, line, sizes)."""
    order = {kind: i for i, kind in enumerate(
        (MISMATCH, DATA_DEPENDENT, CONSTRAINT, COMPILE_ERROR, GRAPH_BREAK, SPECIALIZATION, RECOMPILE, GUARD))}
    ranked = sorted(evidence, key=lambda e: (MODES.index(e.mode), order.get(e.kind, 9), e.line or 0, e.sizes))
    return [
        {"kind": e.kind, "mode": e.mode, "line": e.line, "sizes": list(e.sizes), "detail": e.detail}
        for e in ranked[:limit]
    ]


def graph_counts(report: FunctionReport) -> dict:
    """Graphs compiled per mode that ran, next to the trivial-function baseline."""
    return {r.mode: {"graphs": r.graphs, "baseline": r.baseline} for r in report.runs if not r.skipped}


def eager_failures(errors: dict[int, str]) -> str:
    """``eager failed at sizes 0,1 (IndexError: ...); at sizes 3 (ValueError: ...)``: each
    distinct error with the sizes it came at."""
    by_error: dict[str, list[int]] = defaultdict(list)
    for size in sorted(errors):
        by_error[errors[size]].append(size)
    return "eager failed at " + "; at ".join(
        f"sizes {','.join(map(str, sizes))} ({error})" for error, sizes in by_error.items()
    )
