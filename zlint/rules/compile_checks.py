"""Shared bases of the ZL41x rules that check ``torch.compile`` calls and torch names against the
targeted torch version's facts (``zlint/data/torch/*.json``), and their message helpers."""

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
    """Pick this base for a rule that checks code against what the targeted torch version has
    (attributes, config keys, backends, modes): ``self.data`` is that version's
    :class:`~zlint.core.torch_versions.TorchData`, loaded once per process. Reads no size fact.
    ZL412, ZL415-ZL417; for ``torch.compile(...)`` calls, :class:`CompileCallRule`."""

    _data: TorchData | None = None

    @property
    def data(self) -> TorchData:
        if self._data is None:
            self._data = torch_data(settings=self.context.settings)
        return self._data


class CompileCallRule(TorchDataRule):
    """Pick this base for a rule about the arguments of a compile call: it calls :meth:`check`
    with the parsed :class:`~zlint.facts.compile_calls.CompileCall` of every
    ``torch.compile(...)``/``module.compile(...)`` call (``@torch.compile(...)`` included), and
    has the torch data of :class:`TorchDataRule`. Reads no size fact. ZL410, ZL411, ZL413, ZL414,
    ZL418, ZL419."""

    def visit_Call(self, node: cst.Call) -> None:
        call = compile_call(node, self.context.imports)
        if call is not None:
            self.check(call)

    def check(self, call: CompileCall) -> None:  # pragma: no cover - abstract
        raise NotImplementedError
