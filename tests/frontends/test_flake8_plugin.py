"""zlint as a flake8 plugin, run for real: ``flake8`` in a subprocess must report exactly the
(line, column, code) triples that ``zlint --format json`` reports, under flake8's own selection,
``# noqa`` handling and config files; a syntax error is flake8's E999 and nothing else."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT
from inprocess import zlint
from zlint.frontends.flake8 import setting_options
from zlint.scope.index import decode_scope

FENCE = re.compile(r"```python\n(.*?)```", re.S)
#: what enables a single-graph mode: a project-wide fact the per-file flake8 plugin cannot see
SINGLE_GRAPH_MODE = re.compile(r"backed_size_oblivious|mark_unbacked|Dim\.DYNAMIC")
FORMAT = "%(path)s:%(row)d:%(col)d:%(code)s"

NOQA = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    if n == 1:  # noqa: ZL101
        return x
    if x.numel():  # noqa
        return x.sum(0)
    if n > 2:  # noqa: E501
        return x
    if n == 0 or x.numel():  # noqa: ZL102
        return x
    return x  # noqa: ZL103
"""
COMPILED = """\
import torch


@torch.compile
def fast(x: torch.Tensor) -> torch.Tensor:
    if x.size(0) == 1:
        return x
    return x


def slow(x: torch.Tensor) -> torch.Tensor:
    if x.size(0) == 1:
        return x
    return x
"""
# tabs, wide characters and a CRLF file: columns are code points after flake8 adds its 1
COLUMNS = (
    "import torch\n\n\ndef f(x: torch.Tensor):\n"
    "\tnom = 'größe'; y = x if x.size(0) == 1 else x[:1] if x.numel() > 9 else x\n\treturn y\n"
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """The examples, every rule doc's Example and Use instead blocks, and some awkward files."""
    root = tmp_path_factory.mktemp("flake8-corpus")
    for example in sorted((ROOT / "examples").glob("*.py")):
        shutil.copy(example, root / example.name)
    for doc in sorted((ROOT / "rules").glob("ZL*.md")):
        for i, block in enumerate(FENCE.findall(doc.read_text(encoding="utf-8"))):
            if SINGLE_GRAPH_MODE.search(block):
                # flake8 sees one file at a time; a zlint run sees the project, where a file that
                # enables a single-graph mode changes what the other files' findings cost
                continue
            (root / f"{doc.stem.split('-')[0].lower()}_{i}.py").write_text(block, encoding="utf-8")
    (root / "noqa_comments.py").write_text(NOQA, encoding="utf-8")
    (root / "columns.py").write_text(COLUMNS, encoding="utf-8")
    (root / "crlf.py").write_bytes(NOQA.replace("# noqa", "# no-qa").replace("\n", "\r\n").encode("utf-8"))
    assert len(list(root.glob("*.py"))) > len(FEW)
    return root


def _flake8(cwd: Path, *args: str, cache: Path | None = None) -> list[tuple[str, int, int, str]]:
    """flake8's (path, row, col, code) rows; zlint's cache in ``cache`` (default: a fresh one)."""
    proc = _run_flake8(cwd, f"--format={FORMAT}", *args, cache=cache)
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    rows = []
    for line in proc.stdout.splitlines():
        path, row, col, code = line.rsplit(":", 3)
        rows.append((path.removeprefix("./"), int(row), int(col), code))
    return sorted(rows)


def _run_flake8(cwd: Path, *args: str, cache: Path | None = None) -> subprocess.CompletedProcess:
    if cache is None:  # each run cold unless a test shares a cache on purpose
        cache = Path(tempfile.mkdtemp(prefix="zlint-cache-"))
    env = {**os.environ, "ZLINT_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "flake8", *args], cwd=cwd, capture_output=True, text=True, env=env)


def _cli(cwd: Path, *args: str) -> list[tuple[str, int, int, str]]:
    result = zlint("--format", "json", "--no-cache", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        (f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in json.loads(result.stdout)
    )


# the selection variants run on a few files; the full corpus is compared twice above
FEW = ("noqa_comments.py", "columns.py", "crlf.py")


def _zl(rows):
    return [row for row in rows if row[3].startswith("ZL")]


def test_plugin_is_registered():
    proc = subprocess.run([sys.executable, "-m", "flake8", "--version"], capture_output=True, text=True)
    assert re.search(r"\bzlint: \d", proc.stdout), proc.stdout


def test_default_run_matches_the_cli_exactly(corpus):
    flake8 = _zl(_flake8(corpus, "--isolated", "."))
    cli = _cli(corpus, ".")
    assert flake8 == cli
    assert len({code for *_, code in cli}) >= 3, cli  # the corpus exercises several rules
    assert ("columns.py", 5, 26, "ZL101") in cli and ("columns.py", 5, 55, "ZL103") in cli


def test_select_matches_the_cli_and_opt_in_codes_need_their_whole_code(corpus):
    # `--select ZL` (what flake8 users write next to E,F,W) leaves the opt-in rules off, as zlint's
    flake8 = _flake8(corpus, "--isolated", "--select=ZL", ".")
    assert flake8 == _cli(corpus, "--select", "ZL", ".") == _cli(corpus, ".")
    assert all(code not in ("ZL203", "ZL210", "ZL418", "ZL901") for *_, code in flake8)
    for prefix in ("ZL9", "ZL90"):  # a prefix, however long, is not the code
        assert _flake8(corpus, "--isolated", f"--select={prefix}", *FEW) == []
    # named whole, they run: in --select or --extend-select, on the command line or in a config
    named = _flake8(corpus, "--isolated", "--select=ZL,ZL901", ".")
    assert named == _cli(corpus, "--select", "ZL,ZL901", ".")
    assert ("noqa_comments.py", 14, 15, "ZL901") in named  # a noqa comment for ZL103 where nothing fires
    (corpus / "opt_in.cfg").write_text("[flake8]\nselect = ZL\nextend-select = ZL901\n", encoding="utf-8")
    assert _flake8(corpus, "--config=opt_in.cfg", *FEW) == [row for row in named if row[0] in FEW]
    only = _flake8(corpus, "--isolated", "--select=ZL102", *FEW)
    assert only and only == _cli(corpus, "--select", "ZL102", *FEW)


def test_extend_ignore_and_extend_select(corpus):
    ignored = _zl(_flake8(corpus, "--isolated", "--extend-ignore=ZL102", *FEW))
    assert ignored == _cli(corpus, "--ignore", "ZL102", *FEW)
    assert ignored and all(code != "ZL102" for *_, code in ignored)
    extended = _zl(_flake8(corpus, "--isolated", "--extend-select=ZL901", *FEW))
    assert extended == _cli(corpus, "--extend-select", "ZL901", *FEW)
    assert ("noqa_comments.py", 14, 15, "ZL901") in extended


def test_noqa_comments(corpus):
    rows = [r[1:] for r in _zl(_flake8(corpus, "--isolated", "noqa_comments.py"))]
    assert rows == [(10, 8, "ZL103"), (12, 8, "ZL101")]
    assert rows == [r[1:] for r in _cli(corpus, "noqa_comments.py")]
    # the same file without its noqa comments (and with CRLF line ends) reports everything
    assert [r[1:] for r in _zl(_flake8(corpus, "--isolated", "crlf.py"))] == [
        (6, 8, "ZL101"), (8, 8, "ZL102"), (10, 8, "ZL103"), (12, 8, "ZL101"), (12, 18, "ZL102"),
    ]


def test_syntax_error_is_e999_only(tmp_path):
    (tmp_path / "broken.py").write_text("import torch\n\ndef f(x:\n    if x.size(0) == 1: pass\n", encoding="utf-8")
    assert _flake8(tmp_path, "--isolated", "--select=ZL,E999", "broken.py") == [("broken.py", 3, 7, "E999")]


def test_a_file_zlint_cannot_lint_is_zl000_with_the_reason(tmp_path):
    # the case rules/ZL000-file-not-linted.md shows: one comment line of more than 4 MiB
    (tmp_path / "big.py").write_text("x = 1\n# " + "a" * (4 * 1024 * 1024 + 10) + "\n", encoding="utf-8")
    # flake8's own output format (one run: every flake8 pass over 4 MiB costs seconds)
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select=ZL", "big.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert (proc.returncode, proc.stderr) == (1, ""), proc.stderr
    assert proc.stdout == (
        "big.py:1:1: ZL000 zlint could not lint this file: "
        "too large to lint (4.0 MiB; the limit is 4 MiB): exclude it\n"
    )
    # and, like any code, flake8's selection turns it off
    assert _flake8(tmp_path, "--isolated", "--select=ZL", "--extend-ignore=ZL000", "big.py") == []


def test_zlint_settings_are_flake8_options(tmp_path):
    """Every behaviour setting is a ``--zlint-*`` option, read from flake8's config too."""
    proc = subprocess.run([sys.executable, "-m", "flake8", "--help"], capture_output=True, text=True)
    flags = {option.flag for option in setting_options()}
    assert {"--zlint-compiled-only", "--zlint-torch-version"} <= flags
    assert flags <= set(re.findall(r"--zlint-[a-z-]+", proc.stdout))

    for name in ("a.py", "b.py"):  # two files: flake8 may hand them to worker processes
        (tmp_path / name).write_text(COMPILED, encoding="utf-8")
    (tmp_path / "tox.ini").write_text(
        "[flake8]\nselect = ZL\nextend-ignore = ZL103\nzlint-compiled-only = true\n", encoding="utf-8"
    )
    flake8 = _flake8(tmp_path, "--jobs=2", "a.py", "b.py")
    assert flake8 == [("a.py", 6, 8, "ZL101"), ("b.py", 6, 8, "ZL101")]  # `slow` is not compiled
    (tmp_path / "pyproject.toml").write_text(
        '[tool.zlint]\nignore = ["ZL103"]\ncompiled-only = true\n', encoding="utf-8"
    )
    assert flake8 == _cli(tmp_path, "a.py", "b.py")
    (tmp_path / "tox.ini").unlink()
    assert len(_flake8(tmp_path, "--isolated", "--select=ZL", "a.py")) == 2  # without the option


def test_bad_setting_is_a_one_line_error(tmp_path):
    (tmp_path / "a.py").write_text(COMPILED, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--zlint-torch-version=banana", "a.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines() == [
        "flake8: error: zlint: not a torch version: 'banana' (expected e.g. '2.13' or '2.13.0')"
    ]


# -- what the plugin costs -----------------------------------------------------------------------

#: a local flake8 plugin that reports, on line 1 of each file, which of zlint's heavy modules are
#: loaded in the process that checks it; with ``--jobs=1`` and two files, its report on the second
#: file shows what zlint's checker loaded for the first
PROBE = """\
import sys


class Probe:
    name = "probe"
    version = "0"

    def __init__(self, tree):
        pass

    def run(self):
        watched = ("libcst", "zlint.engine.lint", "zlint.rules.zl101_size_compared_with_zero_or_one")
        loaded = [m for m in watched if m in sys.modules]
        yield 1, 0, "ZZZ100 " + (",".join(loaded) or "nothing"), type(self)
"""
LOCAL_PLUGIN = "[flake8:local-plugins]\nextension =\n    ZZZ = probe:Probe\npaths = .\n"
HEAVY = "libcst,zlint.engine.lint,zlint.rules.zl101_size_compared_with_zero_or_one"


@pytest.fixture
def probed(tmp_path: Path) -> Path:
    (tmp_path / "probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "a.py").write_text(COMPILED, encoding="utf-8")
    (tmp_path / "b.py").write_text(COLUMNS + "x=1\n", encoding="utf-8")  # E225 on its last line
    return tmp_path


def _probe(cwd: Path, *args: str, config: str = "") -> tuple[int, dict[str, str], list[tuple]]:
    """flake8's exit code, the probe's report per file, and every other (path, row, col, code)."""
    (cwd / "setup.cfg").write_text(LOCAL_PLUGIN + config, encoding="utf-8")
    proc = _run_flake8(cwd, "--jobs=1", f"--format={FORMAT}:%(text)s", "--extend-select=ZZZ", *args, "a.py", "b.py")
    assert "Traceback" not in proc.stderr, proc.stderr
    probes, rows = {}, []
    for line in proc.stdout.splitlines():
        path, row, col, code, text = line.split(":", 4)
        if code == "ZZZ100":
            probes[path] = text.removeprefix("ZZZ100 ")
        else:
            rows.append((path, int(row), int(col), code))
    return proc.returncode, probes, sorted(rows)


def test_no_zl_code_enabled_loads_no_libcst_and_no_rule(probed):
    code, probes, rows = _probe(probed)  # the near miss: ZL on, so the second file sees LibCST loaded
    assert probes == {"a.py": "nothing", "b.py": HEAVY} and code == 1
    assert ("a.py", 6, 8, "ZL101") in rows and ("b.py", 7, 2, "E225") in rows, rows
    others = [row for row in rows if not row[3].startswith("ZL")]
    for args, config in (
        (("--extend-ignore=ZL",), ""),
        (("--select=E,W,F,C90,ZZZ",), ""),
        (("--select=E",), ""),  # ZZZ still runs: --extend-select
        ((), "[flake8]\nextend-ignore = ZL\n"),
        ((), "[flake8]\nignore = E121,ZL1,ZL2,ZL3,ZL4,ZL9,ZL0\n"),
    ):
        code, probes, rows = _probe(probed, *args, config=config)
        assert probes == {"a.py": "nothing", "b.py": "nothing"}, (args, config)
        assert code == 1 and ("b.py", 7, 2, "E225") in rows, (args, config)
        assert not [row for row in rows if row[3].startswith("ZL")]
        if not config and args != ("--select=E",):
            assert rows == others, args  # the other checks' findings and columns are untouched
    # the opt-in code alone is selected: zlint has work to do, but ZL901 reads comments, so the
    # engine runs without a rule module or LibCST
    assert _probe(probed, "--select=ZL901,ZZZ")[1]["b.py"] == "zlint.engine.lint"


def test_cache_gives_the_same_findings_and_is_shared_with_the_cli(corpus, tmp_path):
    cache = tmp_path / "cache"
    cold = _flake8(corpus, "--isolated", "--select=ZL", "--jobs=2", ".", cache=cache)
    [store] = [p for p in cache.glob("v1/*.json") if not p.name.endswith("-project.json")]
    # every worker process saved its entries (all but the CRLF file, which is never cached)
    cacheable = [p for p in corpus.glob("*.py") if b"\r" not in p.read_bytes()]
    entries = json.loads(store.read_text())["entries"].values()
    # per file, its findings before placement; per file with findings, the one-file scope they
    # are placed in (a note: no ast walk when warm)
    results = [e for e in entries if isinstance(e, dict)]
    assert len(results) == len(cacheable)
    notes = [json.loads(e) for e in entries if isinstance(e, str)]
    assert len(notes) == len([r for r in results if r["diagnostics"]]) > 0
    assert all(decode_scope(note) is not None for note in notes)
    assert all(d["scope"] == "unknown" and d["scope_reason"] == "" for r in results for d in r["diagnostics"])
    warm = _flake8(corpus, "--isolated", "--select=ZL", ".", cache=cache)
    assert cold == warm == _cli(corpus, "--select", "ZL", ".")
    default = _flake8(corpus, "--isolated", ".", cache=cache)
    assert _zl(default) == _cli(corpus, ".")


def test_flake8_reads_the_entry_the_cli_wrote(tmp_path):
    (tmp_path / "a.py").write_text(COMPILED, encoding="utf-8")
    cache = tmp_path / "cache"
    env = {**os.environ, "ZLINT_CACHE_DIR": str(cache)}
    subprocess.run([sys.executable, "-m", "zlint", "a.py"], cwd=tmp_path, capture_output=True, env=env, check=False)
    [store] = [p for p in cache.glob("v1/*.json") if not p.name.endswith("-project.json")]
    data = json.loads(store.read_text())
    [entry] = data["entries"].values()
    assert [d["code"] for d in entry["diagnostics"]] == ["ZL101", "ZL101"]
    entry["diagnostics"][0]["message"] = "from the cache"  # only a lookup can report this
    store.write_text(json.dumps(data))
    proc = _run_flake8(tmp_path, "--isolated", "a.py", cache=cache)
    assert proc.stdout.splitlines()[0] == "a.py:6:8: ZL101 from the cache"
    # near misses: other settings or other bytes are another key
    assert "from the cache" not in _run_flake8(tmp_path, "--isolated", "--select=ZL101", "a.py", cache=cache).stdout
    (tmp_path / "a.py").write_text(COMPILED + "\n", encoding="utf-8")
    assert "from the cache" not in _run_flake8(tmp_path, "--isolated", "a.py", cache=cache).stdout
