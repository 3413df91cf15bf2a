"""What a rule reports, independent of how any front end prints it: findings and their fixes.

Core data: this module imports nothing of zlint, so every layer can use it.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field


class Applicability(enum.Enum):
    """Whether ``--fix`` may apply a fix on its own."""

    SAFE = "safe"  # keeps behaviour: applied by --fix
    UNSAFE = "unsafe"  # may change behaviour in corner cases: needs --unsafe-fixes


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (1-based lines, 0-based columns) by ``content``."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str

    def to_dict(self) -> dict:
        """The JSON shape: 1-based rows and columns."""
        return {
            "content": self.content,
            "location": {"row": self.line, "column": self.column + 1},
            "end_location": {"row": self.end_line, "column": self.end_column + 1},
        }


@dataclass(frozen=True)
class Fix:
    """The edits a rule offers for one finding (applied together, or not at all)."""

    message: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE

    def to_dict(self) -> dict:
        """The JSON shape of the fix."""
        return {
            "applicability": self.applicability.value,
            "message": self.message,
            "edits": [edit.to_dict() for edit in self.edits],
        }


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding. Lines are 1-based, columns 0-based (front ends add 1 when printing)."""

    path: str
    line: int
    column: int
    code: str
    name: str = field(compare=False)
    message: str = field(compare=False)
    end_line: int = field(compare=False, default=0)
    end_column: int = field(compare=False, default=0)
    #: Qualified name of the enclosing function (``Pooler.forward``), None at module level.
    function: str | None = field(compare=False, default=None)
    #: True when the finding sits in code this file compiles (see zlint.facts.compiled_scope)
    compiled: bool = field(compare=False, default=False)
    #: an edit that resolves the finding (applied by --fix), if the rule offers one
    fix: Fix | None = field(compare=False, default=None)
    #: what the finding costs: "default" (with plain torch.compile) or "single-graph" (only once
    #: sizes are made one graph: mark_unbacked, backed_size_oblivious)
    tier: str = field(compare=False, default="default")
    #: where the code runs: "compiled", "never" (never compiled), "option" (only under a
    #: non-default module option) or "unknown", and why
    scope: str = field(compare=False, default="unknown")
    scope_reason: str = field(compare=False, default="")
    #: what ``--verify`` observed: ``status`` (CONFIRMED / NOT OBSERVED / UNVERIFIABLE), ``mode``,
    #: ``evidence`` (kind, mode, line, sizes, detail), ``reason``; None without --verify
    verify: dict | None = field(compare=False, default=None)
    #: the line of a graph break in a loop that makes dynamo skip this finding's whole frame
    #: (:mod:`zlint.scope.frames`); 0: none. Placement turns it into the ``never`` scope.
    skipped_by: int = field(compare=False, default=0)
    #: why the finding adds no cost of its own: a size its frame already pins
    #: (:mod:`zlint.scope.pinned`); "": none. Placement turns it into the ``never`` scope.
    paid_by: str = field(compare=False, default="")
    #: a fact of the run the finding holds only under (:func:`tensor_check_need`): the linted file
    #: cannot see it, the run's index can; placement drops the finding where it is not so. "": none
    needs: str = field(compare=False, default="")
    #: the tensor sizes the flagged expression reads, where known: ``"NAME:DIM"`` separated by
    #: spaces (``"boxes:0 x:*"``; see :attr:`zlint.facts.lattice.Fact.origin`). A workload
    #: (:mod:`zlint.workload`) decides from it whether the finding costs in that deployment
    reads: str = field(compare=False, default="")
    #: a test of exactly one size read against a number, the size on the left (``">=64"`` for
    #: ``x.shape[0] >= 64``): a workload tells whether it ever flipped; "": none
    threshold: str = field(compare=False, default="")
    #: why placement hid the finding (``--show-hidden`` lists hidden findings with it); "": shown
    hidden: str = field(compare=False, default="")

    def to_dict(self, url: str | None = None) -> dict:
        """The JSON shape, close to Ruff's: 1-based rows and columns; ``url``: the rule's page
        on the docs site (:func:`zlint.core.rule_docs.rule_url`), None when none is known."""
        data = {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": self.path,
            "location": {"row": self.line, "column": self.column + 1},
            "end_location": {"row": self.end_line, "column": self.end_column + 1},
            "function": self.function,
            "compiled_scope": self.compiled,
            "tier": self.tier,
            "scope": self.scope,
            "scope_reason": self.scope_reason,
            "fix": self.fix.to_dict() if self.fix is not None else None,
            "url": url,
        }
        if self.verify is not None:
            data["verify"] = self.verify
        if self.hidden:
            data["hidden"] = self.hidden
        return data


@dataclass(frozen=True)
class FileError:
    """A file that could not be linted (or a rule that failed on it)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


def tensor_check_need(callee: str) -> str:
    """The run fact that ``callee`` (a name as the file writes it) hands its first argument to
    ``torch._check_tensor_all``: a wrapper of a tensor check, defined in another file of the run."""
    return f"tensor-check:{callee}"


@dataclass
class Hidden:
    """How many findings placement hid, by why (:func:`zlint.scope.placement.place_counted`; the
    run reports each count that is not 0)."""

    #: in code that never runs compiled (``scope = "all"`` shows them), or not compiled under
    #: ``compiled-only``
    never: int = 0
    #: guards on sizes their frame already specializes (:mod:`zlint.scope.pinned`): no cost of their own
    paid: int = 0
    #: in unknown code of a package the run holds whole (nothing compiled reaches it)
    unreached: int = 0
    #: on paths only a non-default configuration of their module takes
    optional: int = 0
    #: the workload's: in files it never loaded, on lines it never ran, on sizes it held constant
    not_loaded: int = 0
    not_run: int = 0
    constant: int = 0
    #: thresholds the workload's sizes never crossed, moved to the single-graph tier
    never_crossed: int = 0
    #: single-graph findings the ``target = "default"`` setting hides
    single_graph: int = 0

    def counts(self) -> list[tuple[int, str]]:
        """The counts that hid something, with a short label each, for a run's summary line
        (``2 single-graph, 1 never run``)."""
        labels = (
            (self.single_graph, "single-graph"), (self.never, "never compiled"), (self.paid, "already paid"),
            (self.unreached, "unreached"),
            (self.optional, "option-only"), (self.not_loaded, "not loaded"), (self.not_run, "never run"),
            (self.constant, "constant size"),
        )
        return [(count, label) for count, label in labels if count]

    def __iadd__(self, other: Hidden) -> Hidden:
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self
