"""Everything a rule module may take from zlint, in one place.

A rule module (``zlint/rules/zl<code>_<name>.py``) imports zlint names from here and from the
bases of this package (``branching``, ``calls``, ``compile_checks``, ``compiled_calls``,
``data_dependent``, ``versioned``), nothing else: ``tests/rules/test_rule_api.py`` fails, by
module and name, on any other zlint import. What sits behind these names (which ``facts`` or
``candidates`` module computes a fact) can move without touching a rule. A rule that needs
something not here adds it here, with a line on what it is for.

The groups below:

- the contract: :class:`Rule` (reads no size fact), :class:`SizeFactsRule` (reads them), and the
  :class:`FileContext` a rule gets (``imports``, ``scope``, ``functions``, ``settings``,
  ``compiled_scope``, ``loops``, ``snippet()``)
- findings: :class:`Diagnostic`, :class:`Fix`, :class:`Edit`, :class:`Applicability`
- shared facts: the size facts' :class:`Fact`/:class:`Kind` (``SizeFactsRule.fact``), imports
  (:class:`ImportMap`, :func:`dotted_name`), compile calls and sites, conditions, dims, literals
- the words a rule's visitor shares with its gate (``zlint/candidates/gates/``, where a rule's
  trigger words, candidate test and ``may_report`` are declared: never on the rule class) and
  with the facts (:mod:`zlint.facts.vocabulary`)
- torch facts of the targeted version: :func:`torch_data`, :func:`target_version`
"""

from __future__ import annotations

from zlint.candidates.gates.compile_setup import PLUGIN_ATTRIBUTES
from zlint.candidates.gates.data_dependent import (
    NONZERO_FUNCTIONS,
    REPEAT_INTERLEAVE,
    SIZED_FACTORIES,
    TENSOR_CHECKS,
    TRACED_NUMPY_RANDOM,
    UNIQUE_FUNCTIONS,
    VALUE_CONVERSIONS,
)
from zlint.candidates.gates.sizes import (
    DESCRIBING_METHODS,
    LAYOUT_METHODS,
    OUTPUT_COUNT_OPS,
    SIZE_CONVERSIONS,
)
from zlint.core.diagnostics import Applicability, Diagnostic, Edit, Fix, tensor_check_need
from zlint.core.settings import Settings
from zlint.core.torch_versions import SYMBOLIC_SINCE, TorchData, target_version, torch_data
from zlint.cst.batched import visit
from zlint.facts.comparisons import names_fixed_size
from zlint.facts.compile_calls import CompileCall, compile_call, is_none, literal_bool, literal_string, literal_type
from zlint.facts.compiled_scope import CompileSite, Dynamic
from zlint.facts.condition_facts import ConditionAtomsProvider, declared_static
from zlint.facts.conditions import condition_atoms, only_raises, truth_tested_in_assert
from zlint.facts.dynamic_dims import DIM_FACTORIES, StaticDimsProvider, mark_kind
from zlint.facts.imports import ImportMap, dotted_name
from zlint.facts.lattice import Fact, Kind, Versus
from zlint.facts.literals import int_literal, number_literal
from zlint.facts.loops import Frame, LoopFacts, Mark
from zlint.facts.size_facts import SizeFactsProvider
from zlint.facts.specialization import positional_params, specializing_use
from zlint.facts.vocabulary import ITERATING_BUILTINS, SYMBOLIC_CHECKS
from zlint.rules.base import FileContext, Rule, SizeFactsRule

__all__ = [
    # the contract
    "FileContext", "Rule", "SizeFactsRule",
    # findings
    "Applicability", "Diagnostic", "Edit", "Fix", "tensor_check_need",
    # size facts (SizeFactsRule.fact)
    "Fact", "Kind", "SizeFactsProvider",
    # imports: every rule's context.imports, filled by the engine for each file
    "ImportMap", "dotted_name",
    # compile calls, compiled callables, loops around their calls
    "CompileCall", "CompileSite", "Dynamic", "Frame", "LoopFacts", "Mark", "compile_call", "is_none",
    "literal_bool", "literal_string", "literal_type",
    # conditions, comparisons, dims, literals, specialization
    "ConditionAtomsProvider", "DIM_FACTORIES", "StaticDimsProvider", "Versus",
    "condition_atoms", "declared_static", "int_literal", "mark_kind", "names_fixed_size", "number_literal",
    "only_raises", "positional_params", "specializing_use", "truth_tested_in_assert",
    # the words a visitor matches as its gate does (zlint/candidates/gates/), or as the facts do
    "DESCRIBING_METHODS", "ITERATING_BUILTINS", "LAYOUT_METHODS",
    "NONZERO_FUNCTIONS", "OUTPUT_COUNT_OPS", "PLUGIN_ATTRIBUTES", "REPEAT_INTERLEAVE",
    "SIZED_FACTORIES", "SIZE_CONVERSIONS", "SYMBOLIC_CHECKS", "TENSOR_CHECKS", "TRACED_NUMPY_RANDOM",
    "UNIQUE_FUNCTIONS", "VALUE_CONVERSIONS",
    # the targeted torch version's facts
    "SYMBOLIC_SINCE", "TorchData", "target_version", "torch_data",
    # the walk for a rule's own sub-visitor, and the settings type
    "Settings", "visit",
]
