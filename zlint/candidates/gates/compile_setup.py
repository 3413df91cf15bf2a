"""The gates of the compile-setup rules (ZL4xx): compile calls, marks, export specs, torch names
and configuration checked against the targeted torch version."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from zlint.candidates.gates.gate import Gate
from zlint.candidates.summary import FunctionSummary, at_compile_sites, spells
from zlint.core.torch_versions import LIMIT_KEYS, torch_data
from zlint.facts.vocabulary import MARK_FUNCTIONS

if TYPE_CHECKING:
    from zlint.core.settings import Settings

#: ZL415: namespaces whose attributes exist only at run time: plugins register device modules
#: (``torch.npu`` from torch_npu, ``torch.hpu`` from habana) with torch._register_device_module
PLUGIN_ATTRIBUTES = frozenset({
    "npu", "hpu", "musa", "mlu", "sdaa", "gcu", "dipu", "xla", "maia", "ipu", "neuron", "tpu", "supa",
    "privateuseone",
})

# ZL412: ``torch._dynamo.optimize`` can only be checked where it is called or renamed on import
_OPTIMIZE_CALL = re.compile(r"\boptimize\b(?:\s|\)|\\)*(?:\(|as\b)")
_COMPILE = re.compile(r"\bcompile\b")


def _compiles_or_optimizes(text: str, tree: ast.Module, settings: Settings | None = None) -> bool:
    """ZL412: a docstring that says "optimize" must not cost the whole-file path."""
    return _COMPILE.search(text) is not None or _OPTIMIZE_CALL.search(text) is not None


def may_name_missing(summary: FunctionSummary, settings: Settings | None = None) -> bool:
    """ZL415: the function spells a torch name (an attribute chain or an import, read through any
    import of the file) that the target version's data does not list."""
    spelled = [q for q in summary.torch_names if q.startswith("torch.")]
    names = torch_data(settings=settings).names if spelled else {}
    for qualified in spelled:
        namespace, _, attr = qualified.rpartition(".")
        known = names.get(namespace)
        if known is None:
            if qualified.startswith("torch._inductor.config."):
                return True
        elif attr not in known and not (namespace == "torch" and attr in PLUGIN_ATTRIBUTES):
            return True
    return False


#: no compile site without the word (the rules that report only around one)
_COMPILE_WORD = frozenset({"compile"})
_BACKEND_WORDS = frozenset({"compile", "optimize"})
_EXPORTS = frozenset({"export", "export_for_training", "draft_export"})
_LIMITS = frozenset(LIMIT_KEYS)

GATES = (
    Gate("ZL401", _COMPILE_WORD, at_compile_sites),
    Gate("ZL402", MARK_FUNCTIONS, spells(MARK_FUNCTIONS)),
    Gate("ZL403", frozenset({"mark_dynamic"})),  # no candidate test: the files it runs on are parsed whole
    Gate("ZL404", _COMPILE_WORD, at_compile_sites),
    Gate("ZL405", frozenset({"Dim"}), spells(frozenset({"Dim"}))),
    Gate("ZL406", _EXPORTS, spells(_EXPORTS)),  # reports at the export call
    Gate("ZL410", _COMPILE_WORD, at_compile_sites),
    Gate("ZL411", _COMPILE_WORD, at_compile_sites),
    Gate("ZL412", _BACKEND_WORDS, spells(_BACKEND_WORDS), _compiles_or_optimizes),
    Gate("ZL413", _COMPILE_WORD, at_compile_sites),
    Gate("ZL414", _COMPILE_WORD, at_compile_sites),
    Gate("ZL415", frozenset({"torch"}), may_name_missing),
    Gate("ZL416", _COMPILE_WORD, at_compile_sites),
    Gate("ZL417", _LIMITS, spells(_LIMITS, strings=True)),
    Gate("ZL418", _COMPILE_WORD, at_compile_sites),
    Gate("ZL419", _COMPILE_WORD, at_compile_sites),
)
