"""A run imports only what it needs: a warm run (every file a cache hit) loads no rule module and
no LibCST, a run that parses nothing (a file whose functions hold no candidate included) loads
no LibCST, and the flake8 entry point stays light.

Each check runs zlint in a fresh interpreter and reads ``sys.modules`` after the run: what an
earlier test imported in this process cannot hide what a real run loads.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import POOL_HAZARD, ROOT
from zlint.core import registry
from zlint.engine import cache

#: modules a run whose files all hit the cache has no use for
HEAVY = (
    "libcst", "zlint.engine.lint", "zlint.rules", "zlint.candidates.stage", "zlint.cst.batched",
    "zlint.facts.size_facts",
)
#: modules only some runs need: the adoption steps, machine formats, workers, package metadata,
#: the per-version torch data (rules and a torch-version setting read it)
OPTIONAL = (
    "zlint.adoption", "zlint.report.sarif", "zlint.report.junit", "multiprocessing", "importlib.metadata",
    "zlint.core.torch_versions",
)

RUN = """
import contextlib, io, json, sys
from zlint.frontends.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
watched = {watched!r}
loaded = sorted({{m for m in sys.modules for w in watched if m == w or m.startswith(w + ".")}})
loaded = sorted({{w for w in watched for m in loaded if m == w or m.startswith(w + ".")}})
print(json.dumps({{"code": code, "out": out.getvalue(), "loaded": loaded}}))
"""


def _zlint(cwd: Path, *args: str, watched: tuple[str, ...] = HEAVY + OPTIONAL, full_path: bool = False) -> dict:
    """Run ``zlint ARGS`` in a fresh interpreter: its exit code, stdout and which of ``watched``
    (modules or packages) it loaded; ``full_path``: with ``ZLINT_FULL_PATH=1``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("ZLINT_CACHE_DIR", None)
    env.pop("ZLINT_FULL_PATH", None)
    if full_path:
        env["ZLINT_FULL_PATH"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", RUN.format(watched=watched), *args],
        cwd=cwd, env=env, capture_output=True, text=True, check=True,
    )
    return json.loads(proc.stdout)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """Three files: one with findings, one clean, one that does not parse."""
    for name in ("likes_pooler.py", "serving_loop.py"):
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    (tmp_path / "pool.py").write_text(POOL_HAZARD, encoding="utf-8")
    (tmp_path / "clean.py").write_text("import torch\n\n\ndef f(x):\n    return x + 1\n", encoding="utf-8")
    return tmp_path


def test_a_warm_run_loads_no_rule_and_no_libcst_and_prints_the_same(project):
    cold = _zlint(project, "--cache-dir", "c", "--jobs", "1", ".")
    # the near miss: linting loads the engine, the rules and LibCST
    assert set(HEAVY) <= set(cold["loaded"]), cold["loaded"]
    assert cold["code"] == 1 and "pool.py:6:8: ZL101 " in cold["out"]
    warm = _zlint(project, "--cache-dir", "c", "--jobs", "1", ".")
    assert warm["loaded"] == [] and (warm["code"], warm["out"]) == (cold["code"], cold["out"])
    uncached = _zlint(project, "--no-cache", ".")
    assert (uncached["code"], uncached["out"]) == (cold["code"], cold["out"])


def test_a_warm_one_file_run_loads_nothing_heavy(project):
    cold = _zlint(project, "--cache-dir", "c", "pool.py")
    warm = _zlint(project, "--cache-dir", "c", "pool.py")
    assert cold["out"] == warm["out"] != "" and cold["code"] == warm["code"] == 1
    assert "libcst" in cold["loaded"] and warm["loaded"] == []
    # an edit is a cache miss: the file is linted again, and the new finding is there
    (project / "pool.py").write_text(POOL_HAZARD + "\n\ndef g(y):\n    return y if y.shape[0] == 1 else 2\n")
    edited = _zlint(project, "--cache-dir", "c", "pool.py")
    assert "libcst" in edited["loaded"] and "pool.py:14:17: ZL101 " in edited["out"]


def test_the_adoption_steps_and_machine_formats_load_when_asked_for(project):
    _zlint(project, "--cache-dir", "c", "pool.py")
    sarif = _zlint(project, "--cache-dir", "c", "--format", "sarif", "pool.py")
    assert json.loads(sarif["out"])["runs"][0]["results"][0]["ruleId"] == "ZL101"
    assert "zlint.report.sarif" in sarif["loaded"] and "libcst" not in sarif["loaded"]
    baseline = _zlint(project, "--cache-dir", "c", "--write-baseline", "b.json", "pool.py")
    assert "zlint.adoption" in baseline["loaded"] and baseline["code"] == 0
    assert _zlint(project, "--cache-dir", "c", "--baseline", "b.json", "pool.py")["out"] == ""


def test_no_libcst_when_nothing_is_parsed(project):
    (project / "broken.py").write_text("def f(:\n", encoding="utf-8")
    broken = _zlint(project, "--no-cache", "broken.py")
    assert broken["code"] == 2 and "libcst" not in broken["loaded"]
    # an opt-in rule about comments only: the engine runs, no rule module, no LibCST
    (project / "noqa.py").write_text(POOL_HAZARD + "y = 1  # noqa: ZL999\n", encoding="utf-8")
    comments = _zlint(project, "--no-cache", "--select", "ZL901", "noqa.py")
    assert comments["code"] == 1 and comments["out"].startswith("noqa.py:11:8: ZL901 ")
    assert "zlint.engine.lint" in comments["loaded"] and "libcst" not in comments["loaded"]
    assert not [m for m in comments["loaded"] if m.startswith("zlint.rules")]
    # the near miss: with a static rule that finds something the file is parsed
    both = _zlint(project, "--no-cache", "--select", "ZL901,ZL1", "noqa.py")
    assert "libcst" in both["loaded"] and "noqa.py:6:8: ZL101 " in both["out"]


#: a file in which no enabled rule's gate keeps a function (nor the module-level code), and its
#: near miss: one candidate of ZL101
NO_CANDIDATE = "import os\n\n\ndef helper(p):\n    return os.listdir(p)\n"
ONE_CANDIDATE = (
    "import torch\n\n\nclass Block(torch.nn.Module):\n    def forward(self, x):\n"
    "        if x.size(0) == 1:\n            return x\n        return x + 1\n"
)
#: what the rules' gates need (the engine, the ``ast`` candidate stage) and what only a parse needs
GATED = ("zlint.engine.lint", "zlint.candidates.stage")
PARSING = ("libcst", "zlint.rules", "zlint.cst", "zlint.facts.size_facts")


def test_a_file_whose_functions_hold_no_candidate_loads_no_rule_and_no_libcst(tmp_path):
    (tmp_path / "plain.py").write_text(NO_CANDIDATE, encoding="utf-8")
    (tmp_path / "block.py").write_text(ONE_CANDIDATE, encoding="utf-8")
    plain = _zlint(tmp_path, "--no-cache", "plain.py", watched=GATED + PARSING)
    assert (plain["code"], plain["out"], plain["loaded"]) == (0, "", sorted(GATED))
    # the near miss: one candidate function, so the rules, LibCST and the facts load, and report
    block = _zlint(tmp_path, "--no-cache", "block.py", watched=GATED + PARSING)
    assert block["code"] == 1 and block["loaded"] == sorted(GATED + PARSING)
    assert [line.split(" ")[:2] for line in block["out"].splitlines()] == [["block.py:6:12:", "ZL101"]]
    # the full path parses every file, as before: the same (empty) answer, with LibCST
    full = _zlint(tmp_path, "--no-cache", "plain.py", watched=GATED + PARSING, full_path=True)
    assert (full["code"], full["out"]) == (0, "") and "libcst" in full["loaded"]


#: what loading an entry point (and its first job) runs -> the modules or packages it must not load
LIGHT_ENTRIES = {
    # flake8 loads the plugin in every run, whatever it checks
    "flake8-plugin": ("import zlint.frontends.flake8", HEAVY + OPTIONAL + ("zlint.engine.cache", "hashlib")),
    # pytest loads it in every run once zlint is installed
    "pytest-plugin": (
        "import zlint.verify.pytest_plugin",
        ("libcst", "torch", "zlint.engine.lint", "zlint.core.registry", "zlint.rules"),
    ),
    # the rule metadata and the settings' selection: from the table, no rule module imported
    "registry": (
        "from zlint.core import registry, settings\n"
        "s = settings.Settings(select=('ZL1',))\n"
        "assert s.enabled_codes('m.py') == {'ZL101', 'ZL102', 'ZL103', 'ZL104'}\n"
        f"assert len(registry.records()) == {len(registry.RULES_BY_CODE)}",
        ("libcst", "zlint.rules"),
    ),
}


@pytest.mark.parametrize("entry", sorted(LIGHT_ENTRIES))
def test_the_entry_points_are_light(entry):
    run, watched = LIGHT_ENTRIES[entry]
    code = (
        f"import sys\n{run}\n"
        f"print(sorted(w for w in {watched!r} if any(m == w or m.startswith(w + '.') for m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- the generated rule table ---------------------------------------------------------------------


def test_the_rule_table_is_fresh():
    """The table must describe the rule modules as they are; else every run reads the modules."""
    assert registry.read_table() == registry.load_records(), "stale: run `python -m zlint.core.registry`"
    assert registry.records() == registry.load_records()
    assert registry.TABLE.read_text(encoding="utf-8") == registry.table_text(
        registry.load_records(), registry.modules_digest()
    ), "stale: run `python -m zlint.core.registry`"


def test_a_stale_table_is_never_read(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    module = rules / "zl105_size_in_docstring.py"
    module.write_text('class X:\n    code = "ZL105"\n    name = "size-in-docstring"\n    summary = "s"\n')
    table = tmp_path / "rules.json"
    records = registry.load_records(rules)
    table.write_text(registry.table_text(records, registry.modules_digest(rules)))
    assert registry.read_table(table, registry.modules_digest(rules)) == records
    # an edit of a rule module (same size: only the checksum tells) makes the table stale
    module.write_text(module.read_text().replace('summary = "s"', 'summary = "t"'))
    assert registry.read_table(table, registry.modules_digest(rules)) is None
    assert registry.load_records(rules)[0].summary == "t"
    # a new module, and a damaged table, too
    module.write_text(module.read_text().replace('summary = "t"', 'summary = "s"'))
    (rules / "zl106_other.py").write_text('class Y:\n    code = "ZL106"\n    name = "other"\n    summary = "o"\n')
    assert registry.read_table(table, registry.modules_digest(rules)) is None
    table.write_text("{")
    assert registry.read_table(table, registry.modules_digest(rules)) is None


# -- the cache's fingerprint ----------------------------------------------------------------------


def test_version_files_are_read_without_importing(tmp_path, monkeypatch):
    package = tmp_path / "zlint_fake_torch"
    package.mkdir()
    (package / "__init__.py").write_text("raise ImportError('must not be imported')\n")
    (package / "version.py").write_text("__version__ = '9.9.0'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert cache.version_file("zlint_fake_torch", "version.py") == "__version__ = '9.9.0'\n"
    assert "zlint_fake_torch" not in sys.modules
    assert cache.version_file("zlint_fake_torch", "_version.py") == "?"
    assert cache.version_file("zlint_no_such_package", "version.py") == "?"


def test_the_fingerprint_follows_the_installed_torch(monkeypatch):
    versions = {"torch": "__version__ = '2.13.0'\n", "libcst": "1.8"}
    monkeypatch.setattr(cache, "version_file", lambda package, name: versions[package])
    cache.linter_fingerprint.cache_clear()
    try:
        before = cache.linter_fingerprint(False)
        versions["torch"] = "__version__ = '2.14.0'\n"
        cache.linter_fingerprint.cache_clear()
        assert cache.linter_fingerprint(False) != before
        versions["torch"] = "__version__ = '2.13.0'\n"
        cache.linter_fingerprint.cache_clear()
        assert cache.linter_fingerprint(False) == before != cache.linter_fingerprint(True)
    finally:
        cache.linter_fingerprint.cache_clear()


# -- discovery's exclude check --------------------------------------------------------------------


def test_the_compiled_exclude_matcher_agrees_with_each_pattern():
    """Discovery asks every file and directory; one compiled check must say what the per-pattern
    rule says (whole path, path prefix, any single component)."""
    import random
    from pathlib import PurePosixPath

    from zlint.core.settings import DEFAULT_EXCLUDE, _matcher, _matches

    patterns = (*DEFAULT_EXCLUDE, "tests/data", "docs/", "*_pb2.py", "a/*/c", "[ab]x?")
    names = ["a", "ax1", "bxy", "c", "tests", "data", "build", "foo.egg-info", "m_pb2.py", "docs", "venv2", "src"]
    rng = random.Random(7)
    seen = set()
    for _ in range(3000):
        parts = [rng.choice(names) for _ in range(rng.randint(1, 4))]
        rel = PurePosixPath(("/" if rng.random() < 0.2 else "") + "/".join(parts))
        expected = any(_matches(rel, pattern) for pattern in patterns)
        assert _matcher(patterns).matches(rel) == expected, rel
        seen.add(expected)
    assert seen == {True, False}
    assert not _matcher(patterns).matches(PurePosixPath("src/tests/model.py"))
    assert _matcher(patterns).matches(PurePosixPath("tests/data/model.py"))


FLAKE8 = """
import json, pathlib, sys
from flake8.main.cli import main
pathlib.Path("out.txt").unlink(missing_ok=True)  # flake8 appends to its output file
main(["--isolated", "--jobs=1", "--select=ZL", "--exit-zero", "--output-file=out.txt", *sys.argv[1:]])
watched = ("libcst", "zlint.engine.lint", "zlint.rules", "zlint.facts")
print(json.dumps({"out": pathlib.Path("out.txt").read_text(), "loaded": sorted(
    {w for w in watched for m in sys.modules if m == w or m.startswith(w + ".")}
)}))
"""


def test_a_warm_flake8_run_walks_no_tree_and_loads_no_rule(project):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZLINT_CACHE_DIR": str(project / "c")}

    def flake8(*args: str) -> dict:
        proc = subprocess.run([sys.executable, "-c", FLAKE8, *args], cwd=project, env=env,
                              capture_output=True, text=True, check=True)
        return json.loads(proc.stdout)

    cold = flake8("pool.py")
    assert "pool.py:6:8: ZL101 " in cold["out"] and set(cold["loaded"]) == {
        "libcst", "zlint.engine.lint", "zlint.rules", "zlint.facts"
    }
    warm = flake8("pool.py")
    # placing the cached findings needs the scope's class (zlint.scope.classify, ``ast`` only),
    # read from a note: no LibCST, fact, engine or rule (and no tree walked: test_flake8_plugin)
    assert warm == {"out": cold["out"], "loaded": []}
    # the CLI finds the entry flake8 wrote (the same key, the same scope)
    assert _zlint(project, "--cache-dir", "c", "--select", "ZL", "pool.py")["loaded"] == []
    # an edit: the scope and the findings are computed again
    (project / "pool.py").write_text(POOL_HAZARD.replace("n == 1", "n == 2"), encoding="utf-8")
    edited = flake8("pool.py")
    assert "ZL101" not in edited["out"] and "libcst" in edited["loaded"]


# -- the project index's cache --------------------------------------------------------------------


def test_runs_over_other_files_in_between_keep_the_index_warm(project, monkeypatch):
    """pre-commit lints a file or two between runs over the whole tree: neither kind of run may
    make the other summarize (``ast``-walk) every file again."""
    from zlint.scope import index

    calls = {"summarize": 0, "classify": 0}

    def counting(name):
        real = getattr(index, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(index, "summarize", counting("summarize"))
    monkeypatch.setattr(index, "classify", counting("classify"))
    store = project / "c" / "project.json"
    tree = sorted(str(p) for p in project.glob("*.py"))
    first = index.ProjectIndex.build(tree, store).scope_of(tree[0])
    assert calls == {"summarize": len(tree), "classify": 1}
    index.ProjectIndex.build(tree[:1], store)  # one file: its summary is stored
    assert calls == {"summarize": len(tree), "classify": 2}
    assert index.ProjectIndex.build(tree, store).scope_of(tree[0]) == first  # a recent answer
    assert calls == {"summarize": len(tree), "classify": 2}
    # a new file between two runs over the tree: summarized alone; the others' summaries stay
    (project / "extra.py").write_text("def h(x):\n    return x\n", encoding="utf-8")
    index.ProjectIndex.build([str(project / "extra.py")], store)
    assert calls == {"summarize": len(tree) + 1, "classify": 3}
    (project / "clean.py").write_text("def f(x):\n    return x - 1\n", encoding="utf-8")  # an edit
    index.ProjectIndex.build([*tree, str(project / "extra.py")], store)
    assert calls == {"summarize": len(tree) + 2, "classify": 4}


def test_a_tree_of_many_directories_reads_its_pyproject_once(tmp_path, monkeypatch):
    import tomllib

    from inprocess import zlint

    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL201"]\n')
    for i in range(6):  # one package per directory, as in a model zoo
        (tmp_path / f"m{i}").mkdir()
        (tmp_path / f"m{i}" / "model.py").write_text("def f(x):\n    for i in range(x.shape[0]):\n        pass\n")
    parsed = []
    real = tomllib.loads
    monkeypatch.setattr(tomllib, "loads", lambda text: parsed.append(text) or real(text))
    first = zlint("--no-cache", ".", cwd=tmp_path)
    assert first.returncode == 1 and first.stdout.count("ZL201") == 6
    assert len(parsed) == 1
    # an edited config is read again (its text keys what was parsed)
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL101"]\n')
    second = zlint("--no-cache", ".", cwd=tmp_path)
    assert second.returncode == 0 and len(parsed) == 2
