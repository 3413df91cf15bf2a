"""One pass per file: one read and one ``ast.parse`` give both the project index's summary and
the findings; the cache keeps findings before placement, and every run places them with its own
project index."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from zlint.core.settings import Settings
from zlint.engine import lint as engine
from zlint.engine import parallel
from zlint.engine.cache import Cache
from zlint.frontends import flake8 as adapter
from zlint.scope import classify as project_scope
from zlint.scope import index as project

HELPER = "import torch\n\n\ndef shrink(x):\n    for i in range(x.shape[0]):\n        x = x * 2\n    return x\n"
LOADER = "from helpers import shrink\n\n\ndef checkpoint_filter_fn(state_dict):\n    return shrink(state_dict)\n"
MODEL = (
    "from torch import nn\nfrom helpers import shrink\n\n\n"
    "class Net(nn.Module):\n    def forward(self, x):\n        return shrink(x)\n"
)
HAZARD = "import torch\n\n\ndef f(x: torch.Tensor):\n    if x.size(0) == 1:\n        return x\n    return -x\n"


def _write(root: Path, files: dict[str, str]) -> list[str]:
    for name, text in files.items():
        (root / name).write_text(text)
    return [str(root / name) for name in files]


def _placed(results) -> list[tuple[str, int, str, str, str]]:
    return [(Path(r.path).name, d.line, d.code, d.scope, d.scope_reason) for r in results for d in r.diagnostics]


def test_a_file_whose_scope_another_file_changed_is_served_from_the_cache_and_placed_again(tmp_path, monkeypatch):
    settings = Settings(scope="all")
    paths = _write(tmp_path, {"helpers.py": HELPER, "loader.py": LOADER})
    cache_dir = tmp_path / "cache"
    first = parallel.lint_files([(p, settings) for p in paths], jobs=1, cache=Cache(cache_dir))
    assert _placed(first) == [("helpers.py", 5, "ZL201", "never", "called only from checkpoint_filter_fn")]
    # hidden by default where it never runs compiled
    assert _placed(parallel.lint_files([(p, Settings()) for p in paths], jobs=1, cache=Cache(cache_dir))) == []

    paths += _write(tmp_path, {"model.py": MODEL})  # now Net.forward calls the helper
    linted = []
    real = parallel.lint_parsed
    monkeypatch.setattr(parallel, "lint_parsed", lambda parsed, path, s: linted.append(path) or real(parsed, path, s))
    cache = Cache(cache_dir)
    second = parallel.lint_files([(p, settings) for p in paths], jobs=1, cache=cache)
    assert linted == [paths[2]] and (cache.hits, cache.misses) == (2, 1)  # only the new file is linted
    assert _placed(second) == [("helpers.py", 5, "ZL201", "compiled", "called from Net.forward")]
    monkeypatch.undo()
    assert _placed(parallel.lint_files([(p, settings) for p in paths], jobs=1)) == _placed(second)  # as uncached
    assert _placed(parallel.lint_files([(p, Settings()) for p in paths], jobs=1, cache=Cache(cache_dir))) == [
        ("helpers.py", 5, "ZL201", "compiled", "called from Net.forward")
    ]


def test_the_cache_holds_findings_before_placement(tmp_path):
    paths = _write(tmp_path, {"helpers.py": HELPER, "model.py": MODEL})
    cache = Cache(tmp_path / "cache")
    parallel.lint_files([(p, Settings()) for p in paths], jobs=1, cache=cache)
    entries = json.loads(cache.file.read_text())["entries"]
    [diagnostic] = [d for entry in entries.values() for d in entry["diagnostics"]]
    assert (diagnostic["code"], diagnostic["scope"], diagnostic["scope_reason"]) == ("ZL201", "unknown", "")


@pytest.fixture
def tree(tmp_path: Path) -> list[str]:
    files = {f"m{i}.py": HAZARD.replace("== 1", f"== {i}") for i in range(9)}
    files.update({"helpers.py": HELPER, "model.py": MODEL, "broken.py": "def h(:\n"})
    (tmp_path / "latin.py").write_bytes(b"s = '\xe9'\n")
    return sorted([*_write(tmp_path, files), str(tmp_path / "latin.py"), str(tmp_path / "missing.py")])


def _snapshot(results):
    return [(r.path, r.diagnostics, r.error) for r in results]


def test_any_jobs_and_any_mix_of_cached_files_give_the_same_results(tree, tmp_path):
    targets = [(p, Settings()) for p in tree]
    reference = parallel.lint_files(targets, jobs=1)
    assert [r.path for r in reference] == tree
    assert len([r for r in reference if r.error]) == 3 and len([r for r in reference if r.diagnostics]) == 10
    assert _snapshot(parallel.lint_files(targets, jobs=2)) == _snapshot(reference)
    # half the files cached (their findings and summaries), half linted in workers
    cache_dir = tmp_path / "cache"
    parallel.lint_files(targets[::2], jobs=1, cache=Cache(cache_dir))
    partly = Cache(cache_dir)
    assert _snapshot(parallel.lint_files(targets, jobs=2, cache=partly)) == _snapshot(reference)
    assert (partly.hits, partly.misses) == (6, 7)  # missing.py: unreadable, never looked up
    assert _snapshot(parallel.lint_files(targets, jobs=2, cache=Cache(cache_dir))) == _snapshot(reference)


def test_each_file_is_read_once_and_parsed_once(tree, monkeypatch):
    reads: list[str] = []
    whole: list[str] = []  # ast.parse of a whole file's text
    texts = {Path(p).read_text(errors="replace") for p in tree if Path(p).exists()}
    real_read, real_parse = parallel.read_source, ast.parse
    monkeypatch.setattr(parallel, "read_source", lambda path: reads.append(path) or real_read(path))

    def parse(source, *args, **kwargs):
        if source in texts:
            whole.append(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", parse)
    summarized = []
    real_summarize = project_scope.summarize
    monkeypatch.setattr(project, "summarize", lambda path, *a: summarized.append(path) or real_summarize(path, *a))
    results = parallel.lint_files([(p, Settings()) for p in tree], jobs=1)
    assert sorted(reads) == tree
    decodable = [p for p in tree if Path(p).exists() and not p.endswith("latin.py")]
    assert sorted(whole) == sorted(Path(p).read_text() for p in decodable)  # broken.py's failed parse too
    assert summarized == [r.path for r in results if r.error is None] and len(summarized) == 11


def test_a_summary_that_fails_leaves_the_file_to_its_own_scope_and_the_run_goes_on(tmp_path, monkeypatch):
    paths = _write(tmp_path, {"helpers.py": HELPER, "model.py": MODEL, "other.py": HAZARD})
    reference = parallel.lint_files([(p, Settings()) for p in paths], jobs=1)

    def summarize(path, *args):
        if path.endswith("model.py"):
            raise RecursionError("too deep")
        return project_scope.summarize(path, *args)

    monkeypatch.setattr(project, "summarize", summarize)
    results = parallel.lint_files([(p, Settings()) for p in paths], jobs=1)
    # without model.py in the index, nothing calls the helper: its finding is placed as unknown,
    # exactly as linting the file alone places it
    assert _placed(results) == [
        ("helpers.py", 5, "ZL201", "unknown", "no compiled caller found"),
        ("other.py", 5, "ZL101", "unknown", "no compiled caller found"),
    ]
    assert _placed(reference)[0] == ("helpers.py", 5, "ZL201", "compiled", "called from Net.forward")
    assert all(r.error is None for r in results)


def test_the_public_lint_source_still_places_its_findings():
    placed = engine.lint_source(HELPER, "helpers.py", Settings(scope="all")).diagnostics
    unplaced = engine.lint_parsed(engine.parse_source(HELPER, "helpers.py"), "helpers.py", Settings(scope="all"))
    assert [(d.code, d.scope, d.scope_reason) for d in placed] == [("ZL201", "unknown", "no compiled caller found")]
    assert [(d.code, d.scope, d.scope_reason) for d in unplaced.diagnostics] == [("ZL201", "unknown", "")]
    assert engine.lint_source("def h(:\n", "b.py").error.reason == "syntax error at 1:7: invalid syntax"


def test_a_warm_flake8_check_places_from_the_note_without_walking_the_tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZLINT_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(adapter.ZlintChecker, "settings", Settings())
    monkeypatch.setattr(adapter.ZlintChecker, "active", True)
    (tmp_path / "pool.py").write_text(HAZARD)

    def check() -> list[tuple[int, int, str]]:
        monkeypatch.setattr(adapter, "_CACHE", [])
        lines = HAZARD.splitlines(keepends=True)
        checker = adapter.ZlintChecker(ast.parse(HAZARD), "./pool.py", lines)
        found = [(line, column, message.split()[0]) for line, column, message, _ in checker.run()]
        adapter._CACHE[0].save()
        return found

    cold = check()
    assert cold == [(5, 7, "ZL101")]

    def walk(*args):
        raise AssertionError("walked the tree although the scope was cached")

    monkeypatch.setattr(project_scope, "scope_for_file", walk)
    monkeypatch.setattr(engine, "lint_parsed", walk)
    assert check() == cold


def test_workers_fork_after_the_rules_are_loaded_once(tree, monkeypatch):
    loaded = []
    monkeypatch.setattr(engine, "preload", lambda codes: loaded.append(codes))
    targets = [(p, Settings()) for p in tree]
    parallel.lint_files(targets, jobs=1)
    assert loaded == []  # no worker: the engine loads what the first file needs
    parallel.lint_files(targets, jobs=2)
    assert loaded == [Settings().enabled_codes("m0.py")]
