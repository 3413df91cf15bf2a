"""Where things live: the layers of zlint's import graph, rule metadata apart from visitors.

Layers, lowest first; a module may import its own layer or lower ones, never a higher one, and the
whole graph has no cycle. Every ``import`` counts, at module level or inside a function. A module
imports no other module's private name, and each name from the module that defines it (no
re-exports, but for the deliberate facades in FACADES); only zlint.verify imports torch.

- core (``zlint.core``): findings and fixes, the rule registry (metadata only), settings, noqa,
  source reading
- cst (``zlint.cst``): LibCST plumbing (LibCST starts here)
- facts (``zlint.facts``, and its run-wide peer ``zlint.scope``)
- candidates (``zlint.candidates``): the ``ast`` pre-stage and the rules' gates (no LibCST)
- rules (``zlint.rules``): the visitors
- engine (``zlint.engine``): one file in, findings out; cache, workers, discovery, the fix loop
- services (``zlint.adoption``, ``zlint.report``, ``zlint.verify``): what a run does with findings
- pipeline (``zlint.pipeline``): the run every front end uses
- front ends (``zlint.frontends``): the CLI, the flake8 plugin
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from conftest import ROOT
from zlint import rules as rule_modules
from zlint.core import registry
from zlint.core.noqa import UNUSED_NOQA_CODE, UNUSED_NOQA_NAME
from zlint.frontends.flake8 import FILE_NOT_LINTED
from zlint.rules.base import Rule

PACKAGE = ROOT / "zlint"
CORE, CST, FACTS, CANDIDATES, RULES, ENGINE, SERVICES, PIPELINE, FRONT = range(9)
#: package (or module) -> layer; the longest matching prefix wins. The packages are the layers:
#: a new module takes its package's layer without an entry here
LAYERS = {
    "zlint.core": CORE,  # findings, registry, settings, noqa, source: no LibCST
    "zlint.workload": CORE,  # the workload file: its recorder and reader, data any layer may read
    "zlint.cst": CST,  # LibCST plumbing: version guard, the batched walk, positions
    "zlint.facts": FACTS,  # per-file LibCST facts the rules read
    "zlint.scope": FACTS,  # run-wide `ast` scope: the project index and placement (a peer of facts)
    "zlint.candidates": CANDIDATES,  # the `ast` pre-stage and the rules' gates: what the rules must see
    "zlint.rules": RULES,  # the visitors, and `rules.api`, all a rule may import
    "zlint.engine": ENGINE,  # one file in, findings out; cache, workers, discovery, the fix loop
    "zlint.adoption": SERVICES,  # baseline and add-noqa over findings
    "zlint.report": SERVICES,  # output formats
    "zlint.verify": SERVICES,  # --verify (torch only in zlint.verify.sandbox)
    "zlint.pipeline": PIPELINE,  # the run every front end uses
    "zlint.frontends": FRONT,  # the CLI, the flake8 plugin
    "zlint.__main__": FRONT,
}
#: the package itself: a lazy facade (PEP 562) over the engine, so a front end
PACKAGE_LAYER = FRONT


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def layer(module: str) -> int:
    if module == "zlint":
        return PACKAGE_LAYER
    prefixes = [prefix for prefix in LAYERS if module == prefix or module.startswith(prefix + ".")]
    assert prefixes, f"{module} has no layer: add it to LAYERS in tests/test_layers.py"
    return LAYERS[max(prefixes, key=len)]


def imported(module: str, path: Path, runtime: bool = False) -> set[str]:
    """The zlint modules ``module`` imports anywhere in its code (function bodies included).

    ``runtime``: what importing really runs: ``from package import module`` also runs the
    package's ``__init__``, and ``if TYPE_CHECKING:`` imports never run."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    if runtime:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.dump(node.test):
                skipped.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in MODULES else base)
                if runtime:
                    found.add(base)
    return {name for name in found if name in MODULES and name != module}


GRAPH = {module: imported(module, path) for module, path in MODULES.items()}
#: the same, as the interpreter runs it (package __init__ included, TYPE_CHECKING left out): a
#: cycle here is one import order away from a partly initialised module
RUNTIME_GRAPH = {module: imported(module, path, runtime=True) for module, path in MODULES.items()}
#: import edges that close a cycle and are being removed elsewhere; each entry names its way out
KNOWN_CYCLE_EDGES: set[tuple[str, str]] = set()  # none left: keep it that way


def test_the_layer_map_is_checked_against_real_imports():
    # the parser sees function-level and relative imports, and `from package import module`
    assert "zlint.engine.lint" in GRAPH["zlint.engine.fixes"]
    assert "zlint.core.registry" in GRAPH["zlint.core.settings"]
    assert {"zlint.core.diagnostics", "zlint.engine.lint"} <= GRAPH["zlint"]  # its TYPE_CHECKING imports
    assert len(MODULES) > 60


def test_every_module_has_a_layer():
    for module in MODULES:
        assert layer(module) in range(FRONT + 1)  # a new module without one fails here, by name
    with pytest.raises(AssertionError, match="zlint.nowhere has no layer"):
        layer("zlint.nowhere")


def test_no_module_imports_a_higher_layer():
    upward = sorted(
        f"{module} ({layer(module)}) imports {target} ({layer(target)})"
        for module, targets in GRAPH.items()
        for target in targets
        # `from zlint import __version__`: the package's own module level imports nothing
        # (test_the_package_imports_nothing_until_used), so reading its version costs no layer
        if layer(target) > layer(module) and target != "zlint"
    )
    assert upward == []


@pytest.mark.parametrize("graph", [GRAPH, RUNTIME_GRAPH], ids=["declared", "runtime"])
def test_import_graph_has_no_cycle(graph):
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    cycles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if (module, target) in KNOWN_CYCLE_EDGES:
                continue
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert cycles == []
    assert all(target in GRAPH[module] for module, target in KNOWN_CYCLE_EDGES), "drop the stale entry"


#: what the engine runs on every file before it knows whether LibCST has anything to parse: the
#: candidate stage and the rules' gates, the vocabulary they share with the facts, the pre-pass
LIBCST_FREE = ("zlint.candidates", "zlint.facts.vocabulary", "zlint.engine.prepass")


def _imports_libcst(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        )
        if any(name == "libcst" or name.startswith("libcst.") for name in names):
            return True
    return False


def test_the_gates_and_what_they_import_load_no_libcst():
    """A file in which no gate keeps a function is linted without LibCST (the start-up tests run
    it for real); here, the module that would break that is named."""
    todo = [m for m in MODULES if any(m == p or m.startswith(p + ".") for p in LIBCST_FREE)]
    reached: set[str] = set()
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(RUNTIME_GRAPH[module])
    assert "zlint.candidates.gates.sizes" in reached and "zlint.core.torch_versions" in reached
    assert sorted(m for m in reached if _imports_libcst(MODULES[m])) == []
    assert _imports_libcst(MODULES["zlint.facts.size_facts"])  # the near miss: the check sees one


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_imports(module: str, tree: ast.Module) -> list[str]:
    """``module imports package.module._name`` for each private name ``module`` takes from another
    zlint module (``from zlint.x import _name``, ``import zlint.x._y``; relative ones too). Its own
    names, and binding a public name to a private one (``from x import y as _y``), are fine."""
    package = module if MODULES.get(module, Path()).name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            if base.split(".")[0] != "zlint":
                continue
            names = [alias.name for alias in node.names]
            if base != module:
                found += [f"{module} imports {base}.{name}" for name in names if _private(name)]
            found += [f"{module} imports {base}" for _ in names[:1] if any(map(_private, base.split(".")))]
        elif isinstance(node, ast.Import):
            found += [
                f"{module} imports {alias.name}" for alias in node.names
                if alias.name.split(".")[0] == "zlint" and any(map(_private, alias.name.split(".")))
            ]
    return found


def test_no_module_imports_another_modules_private_name():
    """A name another module needs is shared: public, in the module that defines it."""
    found = [
        line for module, path in MODULES.items()
        for line in private_imports(module, ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []


def test_private_imports_are_found_by_module_and_name():
    def check(module: str, code: str) -> list[str]:
        return private_imports(module, ast.parse(code))

    assert check("zlint.cst.positions", "from zlint.cst.batched import _children, field_order") == [
        "zlint.cst.positions imports zlint.cst.batched._children"
    ]
    assert check("zlint.facts.helpers", "def f():\n    from .values import _BLOCKS\n") == [
        "zlint.facts.helpers imports zlint.facts.values._BLOCKS"
    ]
    assert check("zlint.verify.runner", "import zlint.verify._hidden") == [
        "zlint.verify.runner imports zlint.verify._hidden"
    ]
    # the near misses: a public name bound to a private one, the module's own names, dunders, others
    assert check("zlint.verify.runner", "from zlint.verify.pool import costly as _costly") == []
    assert check("zlint.cst.batched", "from zlint.cst.batched import _children") == []
    assert check("zlint.rules.base", "from zlint import __version__\nfrom os import _exit") == []


def foreign_private_writes(module: str, tree: ast.Module) -> list[str]:
    """``module writes x._name`` for each assignment to a private attribute of anything but
    ``self``/``cls``: another module's object is changed through its public methods."""
    found = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
        )
        for target in targets:
            if isinstance(target, ast.Attribute) and _private(target.attr) and not (
                isinstance(target.value, ast.Name) and target.value.id in ("self", "cls")
            ):
                found.append(f"{module} writes {ast.unparse(target)}")
    return found


def test_no_module_writes_a_private_attribute_of_an_object_it_does_not_own():
    found = [
        line for module, path in MODULES.items()
        for line in foreign_private_writes(module, ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
    tree = ast.parse("index._layers = {}\nself._cache = {}\nindex.layers = {}\nclass A:\n    _x = 1\n")
    assert foreign_private_writes("zlint.candidates.stage", tree) == ["zlint.candidates.stage writes index._layers"]


#: the names a module offers on behalf of another one, on purpose: the package's lazy facade
#: (PEP 562), and the examples files' documented entry (``from zlint.verify import example``)
FACADES = {"zlint": {"Diagnostic", "lint_file", "lint_source"}, "zlint.verify": {"example"}}
#: modules that are a facade as a whole: the rule API, all a rule module imports from zlint
#: (tests/rules/test_rule_api.py holds the rules to it)
FACADE_MODULES = {"zlint.rules.api"}


def reexports(module: str, text: str) -> list[str]:
    """The names ``module`` imports only to offer them: a module-level import marked ``# noqa:
    F401`` or "re-exported", and the imported names its ``__all__`` lists."""
    if module in FACADE_MODULES:
        return []
    tree = ast.parse(text)
    lines = text.splitlines()
    imported: dict[str, ast.stmt] = {}
    top = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    found = set()
    for statement in top:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [alias.asname or alias.name.split(".")[0] for alias in node.names]
                imported.update(dict.fromkeys(names, node))
                for alias, name in zip(node.names, names):
                    # the line of the name itself, or the statement's first line
                    own = lines[getattr(alias, "lineno", node.lineno) - 1]
                    head = lines[node.lineno - 1]
                    if any(mark in own or mark in head for mark in ("noqa: F401", "re-export")):
                        found.add(name)
    for node in top:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            listed = [e.value for e in getattr(node.value, "elts", ()) if isinstance(e, ast.Constant)]
            found.update(name for name in listed if name in imported)
    return sorted(f"{module} re-exports {name}" for name in found - FACADES.get(module, set()))


def test_no_module_re_exports_what_another_defines():
    """A user imports a name from the module that defines it (``zlint.core.source``'s readers, not
    ``zlint.engine.lint``)."""
    found = [line for module, path in MODULES.items() for line in reexports(module, path.read_text(encoding="utf-8"))]
    assert found == []


def test_re_exports_are_found_by_module_and_name():
    lint = (
        "from zlint.core.source import (  # the reading half\n"
        "    MAX_NESTING,\n    too_large,  # noqa: F401 - re-exported\n)\n"
    )
    assert reexports("zlint.engine.lint", lint) == ["zlint.engine.lint re-exports too_large"]
    report = "from zlint.report.writers import FORMATS\n__all__ = ['FORMATS', 'x']\nx = 1\n"
    assert reexports("zlint.report", report) == ["zlint.report re-exports FORMATS"]
    assert reexports("zlint.facts.size_facts", "from zlint.facts.lattice import (  # re-exported\n    Kind,\n)\n") == [
        "zlint.facts.size_facts re-exports Kind"
    ]
    # the near misses: an import for its side effect in a function, own names in __all__, facades
    assert reexports("zlint.engine.lint", "def preload():\n    from zlint.facts import imports  # noqa: F401\n") == []
    assert reexports("zlint.rules", "from zlint.rules.base import Rule\n__all__ = ['visitors']\nvisitors = 1\n") == []
    assert reexports("zlint.verify", "from zlint.verify.examples import example\n__all__ = ['example']\n") == []


#: imports every module but zlint.verify's, then runs the CLI: what a lint run really loads
NO_TORCH_RUN = r"""
import contextlib, importlib, io, pkgutil, sys
import zlint
for info in pkgutil.walk_packages(zlint.__path__, "zlint."):
    if info.name in ("zlint.verify", "zlint.__main__") or info.name.startswith("zlint.verify."):
        continue
    importlib.import_module(info.name)
from zlint.frontends.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    main(["rules"])
    main(["rule", "ZL101"])
    main([sys.argv[1]])
print("TORCH" if "torch" in sys.modules else "NO-TORCH")
"""


def test_only_verify_imports_torch():
    """The linter core never imports torch: only zlint.verify may, and only lazily."""
    importers = set()
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else []
            )
            if any(name == "torch" or name.startswith("torch.") for name in names):
                importers.add(module)
    assert importers and all(m.startswith("zlint.verify.") for m in importers), sorted(importers)
    # and at run time: every other module imported, the CLI run over the examples
    proc = subprocess.run([sys.executable, "-c", NO_TORCH_RUN, str(ROOT / "examples")], capture_output=True, text=True)
    assert proc.stdout.strip().splitlines()[-1] == "NO-TORCH", proc.stderr


def test_the_package_imports_nothing_until_used():
    tree = ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert {getattr(n, "module", None) or n.names[0].name for n in top_level} <= {"__future__", "importlib", "typing"}


def _fresh(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.strip()


def test_lazy_package_attributes_work_and_unknown_ones_fail():
    assert _fresh("import zlint; print(zlint.lint_source('x = 1\\n').diagnostics, zlint.Diagnostic.__module__)") == (
        "[] zlint.core.diagnostics"
    )
    with pytest.raises(AttributeError):
        import zlint

        zlint.no_such_name  # noqa: B018


# -- rule metadata ------------------------------------------------------------------------------


@pytest.mark.parametrize("record", registry.records(), ids=lambda r: r.code)
def test_a_record_and_its_visitor_agree(record):
    """The registry reads the literals; the imported class must say the same."""
    if not record.is_static:
        assert record.visitor is None and record.kind in ("runtime", "meta")
        with pytest.raises(ValueError):
            rule_modules.visitor(record)
        return
    visitor = rule_modules.visitor(record)
    assert issubclass(visitor, Rule) and issubclass(visitor, cst.BatchableCSTVisitor)
    assert visitor.__module__ == record.module and visitor.__name__ == record.visitor
    for field in ("code", "name", "summary", "default_enabled", "severity", "tier", "about_compiled_code",
                  "needs_size_oblivious"):
        assert getattr(visitor, field) == getattr(record, field), field
    own = [c for c in visitor.__mro__ if issubclass(c, Rule) and c is not Rule]  # the rule and its bases
    assert any(attr.startswith(("visit_", "leave_")) for c in own for attr in vars(c)), "visits nothing"


def test_every_rule_module_is_found_by_its_file_name_and_named_after_its_rule():
    files = sorted(p.name for p in (PACKAGE / "rules").glob("zl*.py"))
    assert files == sorted(f"{r.module.rsplit('.', 1)[1]}.py" for r in registry.records())
    for record in registry.records():
        assert record.module.endswith(f"{record.code.lower()}_{record.name.replace('-', '_')}")


def test_categories_are_data():
    kinds = {r.code: r.kind for r in registry.records()}
    assert {c for c, k in kinds.items() if k == "runtime"} == {"ZL801", "ZL802", "ZL803", "ZL804"}
    assert {c for c, k in kinds.items() if k == "meta"} == {FILE_NOT_LINTED, UNUSED_NOQA_CODE}
    assert registry.RULES_BY_CODE[UNUSED_NOQA_CODE].name == UNUSED_NOQA_NAME
    assert registry.RULES_BY_CODE["ZL417"].severity == "info"
    assert registry.RULES_BY_CODE["ZL101"].family == "size-branching"
    assert registry.kind_of("ZL999") is None
    # rules about a compile call or a comment report wherever it sits; ZL402 is about compiled code
    not_about_code = [r.code for r in registry.records() if not r.about_compiled_code]
    assert {FILE_NOT_LINTED, UNUSED_NOQA_CODE, "ZL401", "ZL410", "ZL417"} <= set(not_about_code)
    assert "ZL402" not in not_about_code and not [c for c in not_about_code if c[2] in "123"]
    assert [r.code for r in registry.records() if r.needs_size_oblivious] == ["ZL104"]
    # the engine runs visitors of static rules only
    assert [v.code for v in rule_modules.visitors(["ZL000", "ZL101", "ZL801", "ZL901"])] == ["ZL101"]


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_new_rule_is_one_module(tmp_path):
    """Adding a rule: write zlint/rules/zl<code>_<name>.py (and its doc); nothing to list."""
    _write(tmp_path, "zl105_size_in_docstring.py", (
        '"""ZL105: a test rule."""\nfrom zlint.rules.base import Rule\n\n\n'
        "class SizeInDocstring(Rule):\n"
        '    code = "ZL105"\n    name = "size-in-docstring"\n'
        '    summary = (\n        "A size named in a docstring"\n    )\n'
        "    default_enabled = False\n    tier: str = 'single-graph'\n    severity = 'error'\n"
        "    needs_size_oblivious = True\n\n"
        "    def visit_Name(self, node) -> None:\n        pass\n"
    ))
    _write(
        tmp_path, "zl905_stale_baseline.py", 'code = "ZL905"\nname = "stale-baseline"\nsummary = "s"\nkind = "meta"\n'
    )
    _write(tmp_path, "helpers.py", "x = 1\n")  # not a rule module: ignored
    found = registry.load_records(tmp_path)
    assert [(r.code, r.kind, r.visitor, r.family) for r in found] == [
        ("ZL105", "static", "SizeInDocstring", "size-branching"),
        ("ZL905", "meta", None, "suppression"),
    ]
    assert (found[0].summary, found[0].default_enabled, found[0].tier, found[0].severity) == (
        "A size named in a docstring", False, "single-graph", "error"
    )
    assert (found[0].needs_size_oblivious, found[0].about_compiled_code) == (True, True)
    assert (found[1].needs_size_oblivious, found[1].about_compiled_code) == (False, False)  # meta


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("zl106_x.py", 'class X:\n    code = "ZL107"\n    name = "x"\n    summary = "s"\n', "file name says ZL106"),
        ("zl106_x.py", 'class X:\n    code = CODE\n    name = "x"\n', "must be a literal"),
        ("zl106_x.py", 'class X:\n    code = "ZL106"\n    name = "x"\n', "missing summary"),
        ("zl106_x.py", 'code = "ZL106"\nname = "x"\nsummary = "s"\n', "kind = 'runtime' or 'meta'"),
        (
            "zl106_x.py",
            'class X:\n    code = "ZL106"\n    name = "x"\n    summary = "s"\n    severity = "fatal"\n',
            "severity",
        ),
        (
            "zl106_x.py",
            'class X:\n    code = "ZL106"\n    name = "x"\n    summary = "s"\n    about_compiled_code = 0\n',
            "bool",
        ),
        ("zl106_x.py", "class X:\n    pass\n", "declares no `code"),
    ],
)
def test_bad_metadata_is_a_clear_error(tmp_path, name, text, error):
    _write(tmp_path, name, text)
    with pytest.raises(registry.RuleMetadataError, match=error):
        registry.load_records(tmp_path)


def test_front_ends_read_the_records():
    from zlint.frontends.flake8 import ZlintChecker
    from zlint.report.sarif import rule_descriptor

    ignored: list[str] = []

    class Manager:
        def add_option(self, *args, **kwargs) -> None:
            pass

        def extend_default_ignore(self, codes: list[str]) -> None:
            ignored.extend(codes)

    ZlintChecker.add_options(Manager())
    opt_in = sorted(r.code for r in registry.records() if not r.default_enabled)
    assert ignored == opt_in == ["ZL203", "ZL210", "ZL418", "ZL901"]
    info = rule_descriptor(registry.RULES_BY_CODE["ZL417"])
    assert info["defaultConfiguration"]["level"] == "note"
    assert info["properties"] == {"family": "compile-setup", "kind": "static", "tier": "default"}
    assert rule_descriptor(registry.RULES_BY_CODE["ZL802"])["properties"]["kind"] == "runtime"
    assert rule_descriptor(registry.RULES_BY_CODE["ZL101"])["defaultConfiguration"]["level"] == "warning"


def test_compiled_only_keeps_meta_findings_by_kind():
    from zlint.core.settings import Settings
    from zlint.engine.lint import lint_source

    text = "def f(x):\n    if x.size(0) == 1:  # noqa: ZL103\n        return x\n"
    settings = Settings(select=("ZL101", "ZL103", "ZL901"), compiled_only=True)
    found = lint_source(text, "m.py", settings).diagnostics
    assert [(d.line, d.code) for d in found] == [(2, "ZL901")]  # ZL101 is not in compiled code
