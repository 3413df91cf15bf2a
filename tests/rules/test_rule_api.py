"""The rule API: what a rule module may import, what a rule declares, what every rule gets.

A rule module imports zlint names only from ``zlint.rules.api`` and the documented bases of
``zlint/rules/``; a rule that reads no size fact does not make a file pay for them; the imports
reach every rule, whatever metadata it declares.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from conftest import ROOT
from zlint import rules as rule_modules
from zlint.engine.lint import run_rules
from zlint.facts.imports import file_imports
from zlint.facts.size_facts import SizeFactsProvider
from zlint.rules import base
from zlint.rules.api import Rule, SizeFactsRule

RULES_DIR = ROOT / "zlint" / "rules"
#: the modules of zlint/rules/ a rule module may import besides the API: the documented bases
BASES = ("branching", "calls", "compile_checks", "compiled_calls", "data_dependent", "versioned")
ALLOWED = {"zlint.rules.api", *(f"zlint.rules.{name}" for name in BASES)}
RULE_FILES = sorted(RULES_DIR.glob("zl[0-9]*.py"))


def zlint_imports(path) -> list[tuple[int, str]]:
    """(line, module) of every zlint import in the file, anywhere (TYPE_CHECKING blocks and
    function bodies included); relative imports resolved against zlint.rules."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                anchor = "zlint.rules".split(".")[: 3 - node.level]
                module = ".".join([*anchor, *([module] if module else [])])
            packages = ("zlint", "zlint.rules")  # `from zlint.rules import calls` imports a module
            names = [f"{module}.{alias.name}" for alias in node.names] if module in packages else [module]
            found.extend((node.lineno, name) for name in names)
    return [(line, name) for line, name in found if name == "zlint" or name.startswith("zlint.")]


def test_the_rule_files_are_found():
    assert len(RULE_FILES) > 40


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_a_rule_module_imports_zlint_only_through_the_api(path):
    wrong = [f"{path.name}:{line} imports {name}" for line, name in zlint_imports(path) if name not in ALLOWED]
    assert wrong == [], "import it from zlint.rules.api (add it there if it is missing)"


def test_the_import_check_catches_every_form(tmp_path):
    bad = tmp_path / "zl999_bad.py"
    bad.write_text(textwrap.dedent("""\
        from typing import TYPE_CHECKING
        import zlint.facts.loops
        from zlint.candidates.walk import callee_name
        from . import base
        from .api import Rule
        from zlint.rules import calls
        if TYPE_CHECKING:
            from zlint.core.settings import Settings
        def f():
            from zlint.facts import imports
    """))
    assert [name for _, name in zlint_imports(bad) if name not in ALLOWED] == [
        "zlint.facts.loops", "zlint.candidates.walk", "zlint.rules.base", "zlint.core.settings", "zlint.facts",
    ]


def test_the_api_exports_what_it_imports():
    from zlint.rules import api

    assert sorted(api.__all__) == sorted(set(api.__all__))
    assert all(hasattr(api, name) for name in api.__all__)


@pytest.mark.parametrize("name", ["base", *BASES])
def test_every_base_says_when_to_pick_it(name):
    module = __import__(f"zlint.rules.{name}", fromlist=["_"])
    assert (module.__doc__ or "").strip(), f"zlint/rules/{name}.py has no module docstring"
    for cls_name, cls in vars(module).items():
        if inspect.isclass(cls) and issubclass(cls, Rule) and cls.__module__ == module.__name__:
            assert (cls.__doc__ or "").strip(), f"{name}.{cls_name} has no docstring"


def _reads_size_facts(cls: type) -> bool:
    # fact(), is_kind() and holds_size() are SizeFactsRule's; a rule that calls none of them
    # (in its own module or its bases' modules) reads no size fact
    mro = [k for k in cls.__mro__ if k.__module__.startswith("zlint.rules.") and k not in (Rule, SizeFactsRule)]
    sources = {inspect.getsource(inspect.getmodule(k)) for k in mro if k.__module__.startswith("zlint.rules.zl")}
    sources |= {inspect.getsource(k) for k in mro}
    return any(word in text for text in sources for word in ("self.fact(", ".is_kind(", ".holds_size("))


def test_a_rule_depends_on_the_size_facts_only_when_it_reads_them():
    assert Rule.METADATA_DEPENDENCIES == ()
    reads = {}
    for visitor in rule_modules.all_visitors():
        declared = SizeFactsProvider in visitor.get_inherited_dependencies()
        assert declared == _reads_size_facts(visitor), visitor.code
        reads[visitor.code] = declared
    assert not reads["ZL402"] and not reads["ZL415"] and reads["ZL101"] and reads["ZL301"]


class _ReadsImports(Rule):
    """A rule that declares no metadata at all: it still gets the file's imports."""

    code = "ZL999"
    name = "reads-imports"
    summary = "test"

    def visit_Call(self, node: cst.Call) -> None:
        if self.context.imports.qualify(node.func) == "torch.nonzero":
            self.report(node, "found")


def test_a_rule_without_metadata_gets_the_imports():
    code = "def f(x):\n    return T.nonzero(x)\nimport torch as T\n"
    found = run_rules(cst.parse_module(code), "t.py", [_ReadsImports])
    assert [(d.line, d.code) for d in found] == [(2, "ZL999")]


TRICKY = """\
import torch
import torch.nn as nn
from torch import compile as c
from . import local
from .pkg import thing
from os import *
if TYPE_CHECKING: import numpy as np
try:
    import a.b.c
except ImportError:
    from x import y as a
else:
    import z
finally:
    from w import v
for _ in range(3):
    import loop_mod
else:
    import loop_else
while False: import never
with ctx:
    from m import n
class K:
    import in_class
    def f(self):
        from torch._dynamo import mark_dynamic as mark
        g = lambda: 1
match cmd:
    case 1:
        import case_mod
    case _:
        import torch as torch
def late():
    import torch as nn
import nn
"""


@pytest.mark.parametrize("name", ["tricky", "examples"])
def test_the_engine_imports_are_the_size_facts_imports(name):
    """The engine's map (rules) and the size facts' map hold the same names once both are done."""
    examples = sorted((ROOT / "examples").rglob("*.py"))
    texts = [TRICKY] if name == "tricky" else [path.read_text(encoding="utf-8") for path in examples]
    assert texts
    for text in texts:
        module = cst.parse_module(text)
        provider = SizeFactsProvider()
        MetadataWrapper(module, unsafe_skip_copy=True).visit(_Probe(provider))
        assert file_imports(module).names() == provider.imports.names()


class _Probe(cst.CSTVisitor):
    """Feeds one SizeFactsProvider's import hooks in traversal order, as its own walk does."""

    def __init__(self, provider: SizeFactsProvider) -> None:
        super().__init__()
        self.provider = provider

    def visit_Import(self, node: cst.Import) -> None:
        self.provider.visit_Import(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.provider.visit_ImportFrom(node)


def test_file_context_holds_no_per_node_cache():
    # per-node facts are metadata providers (zlint/rules/base.py): no dict keyed by id(node) here
    fields = base.FileContext.__dataclass_fields__
    assert {"imports", "scope", "functions", "settings", "path", "module"} <= set(fields)
    assert not [name for name, f in fields.items() if str(f.type).startswith("dict[int")]
    assert "condition_atoms" not in fields and "_static_dims" not in fields


def test_the_static_dims_resolve_without_the_engine():
    # a plain MetadataWrapper (no cache): no settings, the provider collects the imports itself
    from zlint.facts.condition_facts import ConditionAtomsProvider
    from zlint.facts.dynamic_dims import StaticDimsProvider

    code = (
        'from jaxtyping import Float\ndef f(x: Float[T, "b 768"]):\n'
        "    if x.shape[1] > 512 or x.shape[0] > 2:\n        pass\n"
    )
    module = cst.parse_module(code)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    dims = wrapper.resolve(StaticDimsProvider)[module.body[1]]
    assert dims.dims == {"x": ("b", "768")}
    test = module.body[1].body.body[0].test
    atoms = wrapper.resolve(ConditionAtomsProvider)[test]
    assert [module.code_for_node(atom) for atom, _ in atoms] == ["x.shape[0] > 2"]
