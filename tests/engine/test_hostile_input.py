"""Hostile files: each gets a precise result or one clear ``zlint: error: path: reason`` line, in
bounded time and memory, and never a traceback.

Every case runs the real CLI in a subprocess under an address-space limit (``RLIMIT_AS``) and a
timeout, and reports its own peak memory, so a regression shows as a failure, not a hung or
swapping CI machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from zlint.core.settings import Settings
from zlint.core.source import MAX_FILE_BYTES, MAX_NESTING
from zlint.engine.lint import lint_file, lint_source

ALL = Settings(select=("ALL",))
MEMORY_LIMIT = 3 * 2**30  # address space per zlint process
PEAK_RSS_LIMIT_MB = 1500
# runs zlint's main and reports its peak memory on the last stderr line: VmHWM, since on Linux
# ru_maxrss keeps the peak of the forked parent (pytest) from before exec
RUNNER = (
    "import resource, sys\n"
    "from zlint.frontends.cli import main\n"
    "rc = main(sys.argv[1:])\n"
    "try:\n"
    "    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM:')][0]\n"
    "    peak = int(hwm.split()[1]) // 1024\n"
    "except (OSError, IndexError):\n"
    "    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024\n"
    "sys.stderr.write('PEAK-RSS-MB %d\\n' % peak)\n"
    "sys.exit(rc)\n"
)
HAZARD = "def f(x):\n    if x.size(0) == 1:\n        return x\n"


class Run:
    def __init__(self, proc: subprocess.CompletedProcess, seconds: float) -> None:
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        lines = proc.stderr.splitlines()
        assert lines and lines[-1].startswith("PEAK-RSS-MB "), proc.stderr[-2000:]
        self.peak_mb = int(lines[-1].split()[1])
        self.stderr_lines = lines[:-1]
        self.seconds = seconds

    @property
    def errors(self) -> list[str]:
        return [line for line in self.stderr_lines if line.startswith("zlint: error: ")]

    def check_clean_stderr(self) -> None:
        """Only one-line errors and the summary: no traceback, nothing else."""
        for line in self.stderr_lines:
            assert line.startswith(("zlint: error: ", "Found ")), self.stderr_lines
        assert "Traceback" not in "\n".join(self.stderr_lines)


def zlint(*args: str, cwd: Path, timeout: float = 120) -> Run:
    """The real CLI in a subprocess, under a memory limit and a timeout."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, *args],
        cwd=cwd, capture_output=True, text=True, env=env, timeout=timeout, preexec_fn=limit,
    )
    run = Run(proc, time.monotonic() - start)
    run.check_clean_stderr()
    assert run.peak_mb < PEAK_RSS_LIMIT_MB, run.peak_mb
    return run


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# -- deep nesting ------------------------------------------------------------------------------

DEEP = {
    "and-chain": lambda n: "x = " + " and ".join(["a"] * n) + "\n",
    "subscripts": lambda n: "x = a" + "[0]" * n + "\n",
    "string-concatenation": lambda n: "x = " + " ".join(['"a"'] * n) + "\n",
    "unary-minus": lambda n: "x = " + "-" * n + "a\n",
    "sum": lambda n: "x = " + "+".join(["a"] * n) + "\n",
    "elif-chain": lambda n: "if a: pass\n" + "elif a: pass\n" * n,
    "comprehension-fors": lambda n: "x = [a " + " ".join(["for a in b"] * n) + "]\n",
    "dotted-import": lambda n: "import a" + ".b" * n + "\n",
    "conditional-expressions": lambda n: "x = " + "a if b else " * n + "c\n",
    "lambdas": lambda n: "x = " + "lambda: " * n + "1\n",
}


def test_thousands_of_levels_get_one_clear_line_each(tmp_path):
    # 5,000 levels: LibCST's native parser would overflow the C stack (a segfault) on several
    # of these; Python rejects some itself. Either way: one line per file, exit 2, no crash.
    for kind, make in DEEP.items():
        write(tmp_path / f"deep-{kind}.py", make(5000) + HAZARD)
    write(tmp_path / "ok.py", HAZARD)
    run = zlint("--select", "ALL", ".", cwd=tmp_path, timeout=300)
    assert run.returncode == 2
    assert [e.split(": ")[2] for e in run.errors] == [f"deep-{kind}.py" for kind in sorted(DEEP)]
    for error in run.errors:
        assert "too deeply nested" in error or "too many" in error, error
    assert run.stdout.startswith("ok.py:2:8: ZL101 ")  # the other file is still linted


@pytest.mark.parametrize("kind", sorted(DEEP))
def test_moderate_nesting_gets_a_precise_result(kind):
    source = "import torch\n" + DEEP[kind](60) + HAZARD
    result = lint_source(source, "t.py", ALL, full_path=True)
    assert result.error is None, result.error
    assert ("ZL101", source.count("\n") - 1) in [(d.code, d.line) for d in result.diagnostics]


def test_nesting_limit_is_between_real_code_and_libcst_crash():
    # the deepest corpus file measures 53; LibCST's native parser crashes near 1,500 subscripts
    assert 100 < MAX_NESTING < 1000
    assert lint_source("x = a" + "[0]" * (MAX_NESTING + 1) + "\n", "t.py", ALL).error is not None


# -- size --------------------------------------------------------------------------------------


def test_50_mb_file_is_refused_quickly_with_one_line(tmp_path):
    line = b"x = [" + b", ".join(b"%d" % i for i in range(30)) + b"]\n"
    write(tmp_path / "huge.py", line * (50 * 2**20 // len(line) + 1))
    write(tmp_path / "ok.py", HAZARD)
    run = zlint(".", cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert run.errors == [
        f"zlint: error: huge.py: too large to lint (50.0 MiB; the limit is {MAX_FILE_BYTES // 2**20} MiB): exclude it"
    ]
    assert run.stdout.startswith("ok.py:2:8: ZL101 ")
    assert run.peak_mb < 300  # never read whole


def test_one_line_of_a_megabyte_gets_a_precise_result(tmp_path):
    long_line = "table = [" + ", ".join(["1.5"] * (2**20 // 5)) + "]\n"
    assert len(long_line) > 2**20
    write(tmp_path / "long.py", HAZARD + long_line + HAZARD)
    run = zlint("--select", "ALL", "long.py", cwd=tmp_path, timeout=300)
    assert run.returncode == 1
    assert [line.split(" ")[0] for line in run.stdout.splitlines()] == ["long.py:2:8:", "long.py:6:8:"]


# -- bytes and encodings ----------------------------------------------------------------------


BAD_FILES = {
    "nulls.py": (b"x = 1\n\x00\x00y = 2\n", "source contains null bytes"),
    "utf16.py": (
        "\ufeff".encode("utf-16-le") + HAZARD.encode("utf-16-le"),
        "UTF-16 or UTF-32 (byte order mark at offset 0): Python source must be UTF-8 or declare its encoding",
    ),
    "latin1.py": (b"# caf\xe9\n" + HAZARD.encode(), "not valid utf-8 (byte 0xe9 at offset 5)"),
    "py2.py": (
        b'print "hello"\n',
        "syntax error at 1:1: Missing parentheses in call to 'print'. Did you mean print(...)?",
    ),
    "bad_cookie.py": (b"# -*- coding: klingon -*-\nx = 1\n", "unknown encoding: klingon"),
}


def test_undecodable_or_invalid_files_get_one_precise_line_each(tmp_path):
    for name, (data, _) in BAD_FILES.items():
        write(tmp_path / name, data)
    write(tmp_path / "ok.py", HAZARD)
    run = zlint(".", cwd=tmp_path)
    assert run.returncode == 2
    assert run.errors == [f"zlint: error: {name}: {BAD_FILES[name][1]}" for name in sorted(BAD_FILES)]
    assert run.stdout.startswith("ok.py:2:8: ZL101 ")


def test_latin1_with_coding_cookie_is_linted(tmp_path):
    source = "# -*- coding: latin-1 -*-\n# caf\xe9 cr\xe8me\n" + HAZARD.replace("return x", "return x  # \xe9t\xe9")
    write(tmp_path / "latin.py", source.encode("latin-1"))
    run = zlint("latin.py", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.startswith("latin.py:4:8: ZL101 ")


def test_utf8_bom_is_linted(tmp_path):
    write(tmp_path / "bom.py", b"\xef\xbb\xbf" + HAZARD.encode())
    run = zlint("bom.py", cwd=tmp_path)
    assert run.returncode == 1 and run.stdout.startswith("bom.py:2:8: ZL101 ")


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_crlf_and_cr_line_ends_keep_lines_and_columns(newline):
    source = "import torch\n\n" + HAZARD + "def g(y):\n    return 1 if y.shape[0] > 1 else 2\n"
    expected = [(d.line, d.column, d.code) for d in lint_source(source, "t.py", ALL).diagnostics]
    assert expected  # the LF version has findings
    result = lint_source(source.replace("\n", newline).encode(), "t.py", ALL)
    assert result.error is None
    assert [(d.line, d.column, d.code) for d in result.diagnostics] == expected


def test_form_feed_and_tabs():
    source = (
        "import torch\n\x0c\ndef f(x):\n\tif x.size(0) == 1:\n\t\treturn x\n\x0c\n"
        "class A:\n\tdef g(self, y):\n\t\tif y.numel():\n\t\t\tpass\n"
    )
    result = lint_source(source, "t.py", ALL)
    assert result.error is None
    found = [(d.line, d.column, d.code) for d in result.diagnostics]
    assert (4, 4, "ZL101") in found  # columns count a tab as one character
    assert (9, 5, "ZL102") in found


def test_pyi_stub_is_discovered_and_linted(tmp_path):
    write(
        tmp_path / "pkg" / "model.pyi",
        "from torch import Tensor\n\ndef forward(x: Tensor) -> Tensor: ...\nclass M:\n    size: int\n",
    )
    write(tmp_path / "pkg" / "model.py", HAZARD)
    run = zlint("--select", "ALL", "pkg", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines()[0].startswith("pkg/model.py:2:8: ZL101 ")
    assert "Found 1 finding in 1 file (2 files checked)." in run.stderr_lines


# -- the file system ----------------------------------------------------------------------------


def test_symlinks_and_symlink_loops(tmp_path):
    write(tmp_path / "src" / "real.py", HAZARD)
    (tmp_path / "src" / "alias.py").symlink_to("real.py")  # the same file: linted once
    (tmp_path / "src" / "loop.py").symlink_to("loop.py")  # a loop: not a regular file, skipped
    (tmp_path / "src" / "sub").mkdir()
    (tmp_path / "src" / "sub" / "up").symlink_to("..")  # a directory loop: walked once
    (tmp_path / "src" / "dangling.py").symlink_to("missing.py")
    run = zlint("src", cwd=tmp_path, timeout=60)
    assert run.returncode == 1
    assert [line.split(" ")[0] for line in run.stdout.splitlines()] == ["src/alias.py:2:8:"]

    explicit = zlint("src/loop.py", "src/dangling.py", "src/real.py", cwd=tmp_path, timeout=60)
    assert explicit.returncode == 2
    assert explicit.errors == [
        "zlint: error: src/loop.py: cannot read: Too many levels of symbolic links",
        "zlint: error: src/dangling.py: no such file or directory",
    ]
    assert explicit.stdout.startswith("src/real.py:2:8: ZL101 ")


def test_fifo_never_blocks(tmp_path):
    write(tmp_path / "ok.py", HAZARD)
    os.mkfifo(tmp_path / "pipe.py")  # no writer: opening it for reading would wait forever
    in_dir = zlint(".", cwd=tmp_path, timeout=60)
    assert in_dir.returncode == 1 and in_dir.errors == []
    named = zlint("pipe.py", "ok.py", cwd=tmp_path, timeout=60)
    assert named.returncode == 2
    assert named.errors == ["zlint: error: pipe.py: not a regular file"]
    result = lint_file(tmp_path / "pipe.py", ALL)  # the API too
    assert result.error is not None and result.error.reason == "not a regular file"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file whatever its mode (CI runs as root)")
def test_unreadable_file_real_permissions(tmp_path):
    path = write(tmp_path / "secret.py", HAZARD)
    path.chmod(0)
    try:
        run = zlint("secret.py", cwd=tmp_path)
    finally:
        path.chmod(0o644)
    assert run.returncode == 2 and run.errors == ["zlint: error: secret.py: permission denied"]


def test_unreadable_file_permission_error(tmp_path, monkeypatch):
    # CI runs as root, which chmod 000 does not stop: make the open itself fail with EACCES
    import zlint.core.source

    real_open = os.open

    def deny(path, *args, **kwargs):
        if str(path).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(zlint.core.source.os, "open", deny)
    write(tmp_path / "secret.py", HAZARD)
    result = lint_file(tmp_path / "secret.py", ALL)
    assert result.error is not None and result.error.reason == "permission denied"


def test_paths_with_spaces_and_non_ascii_names(tmp_path):
    write(tmp_path / "my models" / "modèle à clé.py", HAZARD)
    write(tmp_path / "my models" / "模型.py", HAZARD)
    run = zlint("--format", "json", "my models", cwd=tmp_path)
    assert run.returncode == 1
    names = sorted(item["filename"] for item in json.loads(run.stdout))
    assert names == ["my models/modèle à clé.py", "my models/模型.py"]
    text = zlint("my models/modèle à clé.py", cwd=tmp_path)
    assert text.stdout.startswith("my models/modèle à clé.py:2:8: ZL101 ")


def test_empty_and_whitespace_files(tmp_path):
    write(tmp_path / "empty.py", b"")
    write(tmp_path / "blank.py", b"\n\n   \n\x0c\n")
    run = zlint(".", cwd=tmp_path)
    assert run.returncode == 0 and run.errors == [] and run.stdout == ""


# -- static lint never runs the code -----------------------------------------------------------


def test_linting_never_imports_or_executes_the_code(tmp_path):
    sentinel = tmp_path / "SENTINEL"
    payload = textwrap.dedent(
        f"""
        import pathlib
        pathlib.Path({str(sentinel)!r}).write_text("executed")
        import torch

        def forward(x):
            if x.size(0) == 1:
                return x
        """
    )
    for name in ("model.py", "__init__.py", "conftest.py", "setup.py", "__main__.py", "stub.pyi", "sitecustomize.py"):
        write(tmp_path / "pkg" / name, payload)
    write(tmp_path / "pkg" / "torch.py", payload)  # a module shadowing torch in the linted tree
    # run from inside the linted directory: its torch.py and sitecustomize.py are on sys.path
    # --scope all: conftest.py is test code, whose findings are hidden by default
    run = zlint("--select", "ALL", "--scope", "all", ".", cwd=tmp_path / "pkg")
    assert run.returncode == 1
    assert len(run.stdout.splitlines()) >= 8
    assert not sentinel.exists()


# -- the nesting measure ------------------------------------------------------------------------


def test_nesting_measure_skips_only_subtrees_that_cannot_matter(monkeypatch):
    """The cheap measure (which skips short subtrees) exceeds a limit exactly when the full one
    (which visits every node) does, on real code and on deep code, for many limits."""
    import ast as ast_module

    import zlint.core.source as source_module

    seeds = [p.read_text() for p in sorted((Path(__file__).resolve().parents[1] / "data" / "fuzz").glob("*.py"))]
    samples = seeds + [make(40) + HAZARD for make in DEEP.values()]
    trees = [ast_module.parse(text) for text in samples]
    cheap = {
        (i, stop): source_module.nesting_depth(tree, text, stop) > stop
        for i, (tree, text) in enumerate(zip(trees, samples))
        for stop in range(4, 70, 3)
    }
    monkeypatch.setattr(source_module._Lines, "span", lambda self, node: 10**9)  # never skip
    for (i, stop), exceeded in cheap.items():
        assert (source_module.nesting_depth(trees[i], samples[i], stop) > stop) == exceeded, (i, stop)
    assert any(cheap.values()) and not all(cheap.values())
