"""Shared base of the ZL41x rules that check ``torch.compile`` calls against the torch version."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import libcst as cst

from zlint.rules.api import CompileCall, Rule, TorchData, compile_call, torch_data


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for a close match, else an empty string."""
    close = difflib.get_close_matches(word, sorted(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def version_note(data: TorchData) -> str:
    """How the message names the torch version (and the fallback, when there was one)."""
    if data.requested:
        return f"torch {data.requested} (data of {data.version})"
    return f"torch {data.version}"


class TorchDataRule(Rule):
    """A rule that reads the target torch version's facts (loaded once per process)."""

    _data: TorchData | None = None

    @property
    def data(self) -> TorchData:
        if self._data is None:
            self._data = torch_data(settings=self.context.settings)
        return self._data


class CompileCallRule(TorchDataRule):
    """Calls :meth:`check` for every ``torch.compile(...)``/``module.compile(...)`` call."""

    def visit_Call(self, node: cst.Call) -> None:
        call = compile_call(node, self.context.imports)
        if call is not None:
            self.check(call)

    def check(self, call: CompileCall) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
