"""Every analysis ends (issue: a class that subclasses an imported class of its own name looped
forever): the shapes that loop a name walk, as whole-package runs and file by file, and project
runs generated from a small grammar of names that bind, import and derive from each other.

Each run here is watched by a timer of the test's own (:func:`watchdog`), with zlint's own time
budget off, so that what ends is the walks themselves (:mod:`zlint.core.walks`), not the budget."""

from __future__ import annotations

import ast
import signal
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from conftest import run_zlint
from zlint.core.settings import Settings
from zlint.engine.parallel import lint_run
from zlint.scope.file_summary import summarize
from zlint.scope.names import Project

NO_BUDGET = Settings(select=("ALL",), scope="all", file_time_budget=0)
#: seconds a test's run may take before the watchdog calls it a hang (each takes well under one)
HANG = 20


class Hang(Exception):
    pass


@contextmanager
def watchdog(seconds: float = HANG) -> Iterator[None]:
    """Fail with :class:`Hang` when the block runs past ``seconds`` (a timer of the test's own:
    zlint leaves a handler it does not own alone)."""

    def expired(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# the issue's seven lines: transformers' generated "modular" files subclass an imported class of
# the same name (`class HybridMambaAttentionDynamicCache(HybridMambaAttentionDynamicCache):`)
SELF_NAMED = {
    "pkg/__init__.py": "",
    "pkg/a.py": "class Cache:\n    pass\n",
    "pkg/b.py": (
        "from pkg.a import Cache\nclass Cache(Cache):\n    def __init__(self):\n"
        "        self.layers = []\n        self.layers.append(1)\n"
    ),
}

#: shapes of names that resolve to themselves, each a small package
SHAPES = {
    "self-named subclass, relative import": {
        "pkg/__init__.py": "",
        "pkg/a.py": (
            "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
            "        if x.size(0) == 1:\n            return x\n        return x\n"
        ),
        "pkg/b.py": (
            "from .a import M\nclass M(M):\n    def forward(self, x):\n        self.sub.run(x)\n"
            "        return super().forward(x)\n"
        ),
    },
    "classes that derive from each other across modules": {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import B\nclass A(B):\n    def forward(self, x):\n        return self.f(x)\n",
        "pkg/b.py": "from pkg.a import A\nclass B(A):\n    def g(self, x):\n        return self.h.run(x)\n",
    },
    "a class that is its own base": {"m.py": "class A(A):\n    def forward(self, x):\n        return self.x.y(x)\n"},
    "a class that is its own base through a chain": {
        "m.py": (
            "class A(C):\n    def forward(self, x):\n        return self.q.r(x)\nclass B(A):\n    pass\n"
            "class C(B):\n    def f(self):\n        return self.g()\n"
        ),
    },
    "a nested class whose base is itself": {
        "m.py": (
            "class Outer:\n    class Inner(Outer.Inner):\n        def forward(self, x):\n"
            "            return self.a.b(x)\n"
        ),
    },
    "an import cycle": {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg.b import f\n",
        "pkg/b.py": "from pkg.a import f\n",
        "pkg/c.py": "from pkg.a import f\nimport torch\n@torch.compile\ndef g(x):\n    return f(x)\n",
    },
    "a = a and mutually recursive aliases": {
        "m.py": "import torch\na = a\nb = c\nc = b\n@torch.compile\ndef g(x):\n    if x.size(0) == 1:\n"
        "        return a(x)\n    return b(x)\n",
    },
    "aliases of each other through star imports": {
        "pkg/__init__.py": "from pkg.a import *\nfrom pkg.b import *\n",
        "pkg/a.py": "from pkg.b import *\nfoo = bar\n",
        "pkg/b.py": (
            "from pkg.a import *\nbar = foo\nimport torch\n@torch.compile\ndef g(x):\n"
            "    return foo(x) + bar(x)\n"
        ),
    },
    "mutually recursive functions": {
        "m.py": "import torch\ndef f(x):\n    if x.size(0) == 1:\n        return g(x)\n    return x\n"
        "def g(x):\n    return f(x[1:])\n@torch.compile\ndef h(x):\n    return f(x)\n",
    },
    "star imports of each other": {
        "pkg/__init__.py": "from .a import *\n",
        "pkg/a.py": "from .b import *\nfrom . import *\n",
        "pkg/b.py": "from .a import *\nfrom pkg import *\nclass K(K):\n    pass\n",
    },
    "a module that imports itself under its own name": {
        "pkg/__init__.py": "from pkg import pkg\nimport pkg.pkg as pkg\n",
        "pkg/pkg.py": "from pkg import *\nfrom .pkg import pkg\n",
    },
    "modules re-exporting each other's names": {
        "pkg/__init__.py": "from . import a as b\nfrom . import b as a\n",
        "pkg/a.py": "from pkg import b\nx = b.x\n",
        "pkg/b.py": "from pkg import a\nx = a.x\nclass C(a.C):\n    pass\n",
    },
    "tables and partials of themselves": {
        "m.py": "import functools, torch\nf = functools.partial(f)\nOPS = {'a': OPS}\nT = [T]\n"
        "@torch.compile\ndef g(x):\n    return OPS['a'](x) + T[0](x) + f(x)\n",
    },
    "a decorator that calls itself": {
        "m.py": "import torch\ndef d(fn):\n    return d(fn)\n@d\n@torch.compile\n@d\ndef f(x):\n    return f(x)\n",
    },
}


def write(root: Path, files: dict[str, str]) -> list[str]:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(str(root / rel) for rel in files)


def lint_package(root: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    """Findings of one run over the whole package (a project-wide index), in this process."""
    paths = write(root, files)
    with watchdog():
        results = lint_run([(p, NO_BUDGET) for p in paths], jobs=1, whole=frozenset(paths)).results
    assert [r.error for r in results] == [None] * len(results)
    return [(Path(d.path).relative_to(root).as_posix(), d.line, d.code) for r in results for d in r.diagnostics]


def test_the_issue_s_self_named_subclass_ends_as_a_package_and_as_one_file(tmp_path: Path):
    write(tmp_path, SELF_NAMED)
    for target in ("pkg", "pkg/b.py"):
        done = run_zlint("--no-cache", "--file-time-budget", "0", target, cwd=tmp_path, timeout=60)
        assert (done.returncode, done.stdout) == (0, ""), done.stderr
    done = run_zlint("--no-cache", "pkg", cwd=tmp_path, timeout=60)
    assert done.stderr.strip().splitlines()[-1] == "Found 0 findings (3 files checked)."


def test_a_self_named_base_is_the_class_imported_before_it(tmp_path: Path):
    """``class Cache(Cache)``: the base is evaluated before the statement binds ``Cache``."""
    files = {"pkg/__init__.py": "", **{k: v for k, v in SELF_NAMED.items() if k != "pkg/__init__.py"}}
    files["pkg/a.py"] = "class Cache:\n    def update(self):\n        pass\n"
    paths = write(tmp_path, files)
    project = Project(summarize(p, ast.parse(Path(p).read_text()), Path(p).read_text()) for p in paths)
    a, b = str(tmp_path / "pkg/a.py"), str(tmp_path / "pkg/b.py")
    with watchdog():
        assert project.bases((b, "Cache")) == [(a, "Cache")]
        assert list(project.lineage(b, "Cache")) == [(b, "Cache"), (a, "Cache")]
        assert project.method(b, "Cache", "update") == (a, "Cache.update")
        assert project.attribute_class(b, "Cache", "layers") is None
        assert project.overrides(a, "Cache", "__init__") == [(b, "Cache.__init__")]


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_every_shape_ends_as_a_package_and_file_by_file(tmp_path: Path, shape: str):
    files = SHAPES[shape]
    package = lint_package(tmp_path / "whole", files)
    for rel in sorted(files):  # each file as its own project (the flake8 plugin, `zlint FILE`)
        alone = write(tmp_path / "alone", {rel: files[rel]})
        with watchdog():
            (result,) = lint_run([(alone[0], NO_BUDGET)], jobs=1).results
        assert result.error is None, result.error
    # the size tests the shapes hold are still found where compiled code reaches them
    expected = {
        "self-named subclass, relative import": [("pkg/a.py", 4, "ZL101")],
        "a = a and mutually recursive aliases": [("m.py", 7, "ZL101")],
        "mutually recursive functions": [("m.py", 3, "ZL101")],
    }
    assert package == expected.get(shape, [])


# -- generated projects: modules that import, alias, derive from and call each other ----------

MODULES = ["a", "b", "c"]
NAMES = list("PQRS")


@st.composite
def statements(draw: st.DrawFn, module: str) -> str:
    """One module-level statement that binds a name from the small pool, in one of the ways a
    name can come back to itself."""
    name, other = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
    source = draw(st.sampled_from(MODULES))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        return f"from pkg.{source} import {name}\n"
    if kind == 1:
        return f"from .{source} import *\n"
    if kind == 2:
        return f"from . import {source} as {name.lower()}\n"
    if kind == 3:
        return f"{name} = {other}\n"
    if kind == 4:
        return f"{name} = {source}.{other}\n" if source != module else f"{name} = {other}\n"
    if kind == 5:  # a class deriving from names of the pool, itself included
        bases = ", ".join(draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=2)))
        call, used = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES)).lower()
        # the attribute it sets and the one it uses may differ: a use looks the other up the bases
        return textwrap.dedent(f"""\
            class {name}({bases}):
                def __init__(self):
                    self.{other.lower()} = {call}()
                def forward(self, x):
                    if x.size(0) == 1:
                        return self.{used}.forward(x)
                    return super().forward(x) + self.{used}.run(x)
            """)
    if kind == 6:  # functions calling each other, compiled or not
        decorator = "@torch.compile\n" if draw(st.booleans()) else ""
        return f"{decorator}def {name.lower()}(x):\n    return {other.lower()}(x) + {other}(x)\n"
    if kind == 7:
        return f"{name} = functools.partial({other})\n"
    if kind == 8:
        return f"{name} = {{'k': {other}, 'j': {name}}}\n"
    return f"import pkg.{source} as {name.lower()}\n"


@st.composite
def projects(draw: st.DrawFn) -> dict[str, str]:
    files = {"pkg/__init__.py": "".join(draw(st.lists(statements("__init__"), max_size=3)))}
    for module in MODULES:
        body = draw(st.lists(statements(module), min_size=1, max_size=8))
        files[f"pkg/{module}.py"] = "import functools\nimport torch\n" + "".join(body)
    return files


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(projects())
def test_generated_projects_end(tmp_path_factory: pytest.TempPathFactory, files: dict[str, str]):
    root = tmp_path_factory.mktemp("project")
    lint_package(root, files)


def test_the_generator_makes_the_shapes_that_looped():
    """The generator above is not vacuous: it makes a class deriving from its own name and two
    modules that star-import each other."""
    own_base = find(projects(), lambda files: any(f"class {n}({n})" in text for text in files.values() for n in NAMES))
    assert any(f"class {n}({n})" in text for text in own_base.values() for n in NAMES)
    mutual = find(
        projects(), lambda files: "from .b import *" in files["pkg/a.py"] and "from .a import *" in files["pkg/b.py"]
    )
    assert "from .a import *" in mutual["pkg/b.py"]


@settings(max_examples=15, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(projects(), st.lists(hypothesmith.from_grammar(), min_size=3, max_size=3))
def test_generated_programs_in_modules_that_import_each_other_end(
    tmp_path_factory: pytest.TempPathFactory, files: dict[str, str], bodies: list[str]
):
    """hypothesmith's programs (any valid Python) at the head of the generated modules."""
    for (name, text), body in zip(sorted(files.items())[1:], bodies):
        files[name] = body + "\n" + text
    root = tmp_path_factory.mktemp("project")
    paths = write(root, files)
    with watchdog():
        results = lint_run([(p, NO_BUDGET) for p in paths], jobs=1, whole=frozenset(paths)).results
    for result in results:
        assert result.error is None or "internal error" not in result.error.reason, result.error
