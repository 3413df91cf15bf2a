"""The on-disk result cache: hits only for identical input, never wrong, safe when damaged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_zlint
from zlint.core.settings import Settings
from zlint.engine import parallel
from zlint.engine.cache import Cache, clean, decode_result, encode_result

HAZARD = "import torch\n\n\ndef f(x: torch.Tensor):\n    if x.size(0) == 1:\n        return x\n    return -x\n"
COMPILE = (
    "import torch\n\n\ndef serve(model, requests):\n    compiled = torch.compile(model)\n"
    "    for batch in requests:\n        yield compiled(batch)\n"
)
CLEAN = "def g(a):\n    return a + 1\n"
BROKEN = "def h(:\n"


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    out = []
    for name, text in (("hazard.py", HAZARD), ("serve.py", COMPILE), ("clean.py", CLEAN), ("broken.py", BROKEN)):
        path = tmp_path / name
        path.write_text(text)
        out.append(path)
    return out


def _targets(paths, settings=None):
    return [(str(p), settings or Settings()) for p in paths]


def _snapshot(results):
    return [(r.path, r.diagnostics, r.error) for r in results]


def test_second_run_is_served_from_the_cache(files, tmp_path, monkeypatch):
    cache_dir = tmp_path / "cache"
    first = parallel.lint_files(_targets(files), jobs=1, cache=Cache(cache_dir))
    assert any(r.diagnostics for r in first) and any(r.error for r in first)
    assert any(d.fix is not None for r in first for d in r.diagnostics)  # ZL401 offers a fix

    def fail(*args, **kwargs):
        raise AssertionError("linted although cached")

    monkeypatch.setattr(parallel, "lint_parsed", fail)
    monkeypatch.setattr(parallel, "lint_source", fail)
    warm = Cache(cache_dir)
    second = parallel.lint_files(_targets(files), jobs=1, cache=warm)
    assert _snapshot(second) == _snapshot(first)  # findings, fixes and the syntax error
    assert (warm.hits, warm.misses) == (4, 0)


def test_changed_content_or_settings_are_linted_again(files, tmp_path):
    cache_dir = tmp_path / "cache"
    parallel.lint_files(_targets(files), jobs=1, cache=Cache(cache_dir))
    files[2].write_text(CLEAN + "def k(x):\n    if x.numel() > 0:\n        return x\n")
    cache = Cache(cache_dir)
    results = parallel.lint_files(_targets(files), jobs=1, cache=cache)
    assert (cache.hits, cache.misses) == (3, 1)
    assert [d.code for d in results[2].diagnostics] == ["ZL101"]
    # other settings: another key, so the ZL1-only result is computed, not served
    only_zl102 = Settings(select=("ZL102",))
    cache = Cache(cache_dir)
    results = parallel.lint_files(_targets(files[:1], only_zl102), jobs=1, cache=cache)
    assert (cache.hits, cache.misses) == (0, 1) and results[0].diagnostics == []


def test_corrupt_cache_file_is_ignored_and_rebuilt(files, tmp_path):
    cache_dir = tmp_path / "cache"
    reference = parallel.lint_files(_targets(files), jobs=1, cache=None)
    cache = Cache(cache_dir)
    cache.file.parent.mkdir(parents=True)
    cache.file.write_bytes(b"{not json")
    assert _snapshot(parallel.lint_files(_targets(files), jobs=1, cache=cache)) == _snapshot(reference)
    data = json.loads(cache.file.read_bytes())
    assert len(data["entries"]) == 4
    # entries of the wrong shape are misses, and are overwritten
    data["entries"] = {key: {"diagnostics": "junk"} for key in data["entries"]}
    cache.file.write_text(json.dumps(data))
    again = Cache(cache_dir)
    assert _snapshot(parallel.lint_files(_targets(files), jobs=1, cache=again)) == _snapshot(reference)
    assert (again.hits, again.misses) == (0, 4)
    assert (cache_dir / "CACHEDIR.TAG").is_file() and (cache_dir / ".gitignore").read_text().endswith("*\n")


def test_concurrent_runs_merge_their_entries(files, tmp_path):
    cache_dir = tmp_path / "cache"
    one, two = Cache(cache_dir), Cache(cache_dir)
    one.get("x", "a.py"), two.get("y", "b.py")  # both loaded the (empty) file first
    parallel.lint_files(_targets(files[:2]), jobs=1, cache=one)
    parallel.lint_files(_targets(files[2:]), jobs=1, cache=two)
    warm = Cache(cache_dir)
    parallel.lint_files(_targets(files), jobs=1, cache=warm)
    assert (warm.hits, warm.misses) == (4, 0)


def test_result_encoding_round_trips(files):
    for result in parallel.lint_files(_targets(files), jobs=1, cache=None):
        encoded = json.loads(json.dumps(encode_result(result.diagnostics, result.error)))
        assert decode_result(result.path, encoded) == (result.diagnostics, result.error)


def test_cli_cache_dir_no_cache_and_clean(files, tmp_path):
    cold = run_zlint("--format", "json", ".", cwd=tmp_path)
    assert (tmp_path / ".zlint_cache" / "CACHEDIR.TAG").is_file()
    warm = run_zlint("--format", "json", ".", cwd=tmp_path)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert cold.returncode == 2 and "broken.py" in cold.stderr  # the syntax error, from the cache too

    run_zlint("--cache-dir", "elsewhere", ".", cwd=tmp_path)
    assert (tmp_path / "elsewhere" / "CACHEDIR.TAG").is_file()
    proc = run_zlint("clean", "--cache-dir", "elsewhere", cwd=tmp_path)
    assert proc.returncode == 0 and not (tmp_path / "elsewhere").exists()

    proc = run_zlint("clean", cwd=tmp_path)
    assert proc.returncode == 0 and not (tmp_path / ".zlint_cache").exists()
    run_zlint("--no-cache", ".", cwd=tmp_path)
    assert not (tmp_path / ".zlint_cache").exists()
    # linting wrote nothing but the cache
    assert {p.name for p in tmp_path.iterdir()} == {"hazard.py", "serve.py", "clean.py", "broken.py"}


def test_clean_refuses_a_directory_that_is_not_a_zlint_cache(tmp_path):
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "data.txt").write_text("keep")
    proc = run_zlint("clean", "--cache-dir", "precious", cwd=tmp_path)
    assert proc.returncode == 2 and "does not look like a zlint cache" in proc.stderr
    assert (tmp_path / "precious" / "data.txt").read_text() == "keep"
    with pytest.raises(OSError):
        clean(tmp_path / "precious")


#: runs the real CLI in a fresh interpreter, then prints which heavy modules it had loaded
_MODULES_AFTER_RUN = (
    "import sys\n"
    "from zlint.frontends.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "heavy = [m for m in sys.modules if m == 'libcst'\n"
    "         or m.startswith(('libcst.', 'zlint.rules', 'zlint.engine.lint'))]\n"
    "print(code, len(heavy), 'libcst' in sys.modules, any(m.startswith('zlint.rules.zl') for m in heavy))\n"
)


def test_a_warm_run_loads_no_libcst_and_no_rule(tmp_path):
    (tmp_path / "hazard.py").write_text(HAZARD)
    (tmp_path / "clean.py").write_text(CLEAN)

    def run(*args: str) -> tuple[list[str], str]:
        proc = subprocess.run(
            [sys.executable, "-c", _MODULES_AFTER_RUN, *args], cwd=tmp_path, capture_output=True, text=True
        )
        *report, modules = proc.stdout.splitlines()
        return report, modules

    cold_report, cold = run("hazard.py", "clean.py")
    assert cold.split()[0] == "1" and cold.endswith("True True")  # linted: LibCST and the rules
    warm_report, warm = run("hazard.py", "clean.py")
    assert warm == "1 0 False False"  # the same findings from the cache, nothing heavy loaded
    assert warm_report == cold_report and len(warm_report) == 1 and ":5:8: ZL101 " in warm_report[0]
    # near misses: one changed file is linted; LibCST loads only when that file has code to parse
    (tmp_path / "clean.py").write_text(CLEAN + "\n")
    _, edited = run("hazard.py", "clean.py")
    assert int(edited.split()[1]) > 0 and edited.endswith("False False")  # the engine, no rule
    (tmp_path / "hazard.py").write_text(HAZARD + "\n")
    assert run("hazard.py", "clean.py")[1].endswith("True True")


def test_a_save_waits_for_one_in_progress(tmp_path):
    """flake8's worker processes all save when they exit: each adds to what the others wrote."""
    import threading

    from zlint.engine.cache import _exclusive

    first, second = Cache(tmp_path / "cache"), Cache(tmp_path / "cache")
    first.put("a" * 64, [], None)
    second.put("b" * 64, [], None)
    first._ensure_directory()
    with _exclusive(first.file.parent / "lock"):  # another process is between its read and its write
        saving = threading.Thread(target=second.save)
        saving.start()
        saving.join(0.5)
        assert saving.is_alive() and not second.file.exists()
        first._merge_and_write()
    saving.join(10)
    assert set(json.loads(second.file.read_text())["entries"]) == {"a" * 64, "b" * 64}
