"""The command-line habits Ruff and flake8 users bring: stdin (``zlint - --stdin-filename PATH``),
``--exclude``/``--extend-exclude``, ``--quiet``, ``--config FILE``, ``zlint rule NAME``: exact
outputs and exit codes, in a subprocess."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from conftest import FIXABLE, run_zlint
from conftest import SIZE_HAZARD as HAZARD

ZL101 = (
    "ZL101 `x.size(0) == 1` branches on a size being 1: blocks single-graph mode; "
    "drop the size-1 fast path: the general path handles size 1"
)
ZL102 = "ZL102 `x.numel()` tests a size for truth: blocks single-graph mode; handle 0 branch-free"


def write(base: Path, rel: str, text: str) -> Path:
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def zlint(*args: str, cwd: Path, stdin: str | bytes | None = None):
    """``zlint --no-cache ARGS`` with ``stdin`` piped in (bytes kept as they are)."""
    if isinstance(stdin, bytes):
        import subprocess
        import sys

        return subprocess.run(
            [sys.executable, "-m", "zlint", "--no-cache", *args], cwd=cwd, input=stdin, capture_output=True
        )
    return run_zlint("--no-cache", *args, cwd=cwd, input=stdin or "")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "src/model.py", HAZARD)
    write(tmp_path, "legacy/old.py", HAZARD)
    return tmp_path


# -- stdin ---------------------------------------------------------------------------------------

def test_stdin_without_a_name_is_reported_as_dash(tmp_path):
    proc = zlint("-", cwd=tmp_path, stdin=HAZARD)
    assert proc.stdout == f"-:5:8: {ZL101}\n-:7:12: {ZL102}\n"
    assert (proc.returncode, proc.stderr) == (1, "Found 2 findings in 1 file (1 file checked).\n")


def test_stdin_filename_names_the_file_and_brings_its_settings_and_noqa(project):
    write(project, "pyproject.toml", '[tool.zlint.per-file-ignores]\n"src/*" = ["ZL102"]\n')
    proc = zlint("-", "--stdin-filename", "src/model.py", cwd=project, stdin=HAZARD)
    assert (proc.returncode, proc.stdout) == (1, f"src/model.py:5:8: {ZL101}\n")
    # the path need not exist; its directory's pyproject.toml still applies
    proc = zlint("--stdin-filename", "src/new.py", cwd=project, stdin=HAZARD.replace("== 1:", "== 1:  # noqa: ZL101"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "Found 0 findings (1 file checked).\n")


def test_stdin_filename_of_an_excluded_path_lints_nothing(project):
    write(project, "pyproject.toml", '[tool.zlint]\nexclude = ["legacy"]\n')
    proc = zlint("-", "--stdin-filename", "legacy/old.py", cwd=project, stdin=HAZARD)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "Found 0 findings (0 files checked).\n")
    # the same exclusion from the command line
    proc = zlint("-", "--stdin-filename", "src/model.py", "--extend-exclude", "src", cwd=project, stdin=HAZARD)
    assert (proc.returncode, proc.stdout) == (0, "")
    # --fix gives the source back as it came
    proc = zlint("--fix", "-q", "-", "--stdin-filename", "legacy/old.py", cwd=project, stdin=HAZARD)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, HAZARD, "")


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"x = '\xe9'\n", "not valid utf-8 (byte 0xe9 at offset 5)"),
        (b"x = 1\x00\n", "source contains null bytes"),
        (b"def f(:\n", "syntax error at 1:7: invalid syntax"),
    ],
)
def test_bad_input_on_stdin_is_one_line_exit_2(tmp_path, data, reason):
    proc = zlint("-", "--stdin-filename", "m.py", cwd=tmp_path, stdin=data)
    assert (proc.returncode, proc.stdout) == (2, b"")
    assert proc.stderr.decode() == f"zlint: error: m.py: {reason}\nFound 0 findings (1 file checked; 1 not linted).\n"


REMAINING = (
    "m.py:6:14: ZL201 `range(x.size(0))` loops over a size: recompiles for every size; vectorize or use torch.vmap\n"
    "m.py:16:31: ZL401 `mask` varies in a loop: recompiles at the first new size; add "
    "`torch._dynamo.maybe_mark_dynamic(mask, 0)`\n"
)


def test_fix_on_stdin_prints_the_fixed_source_and_the_rest_on_stderr(tmp_path):
    proc = zlint("--fix", "-", "--stdin-filename", "m.py", cwd=tmp_path, stdin=FIXABLE)
    assert proc.stdout == FIXABLE.replace("mark_dynamic", "maybe_mark_dynamic")
    assert (proc.returncode, proc.stderr) == (
        1,
        "Fixed 1 finding (1 unsafe fix not applied: --unsafe-fixes applies it).\n"
        f"{REMAINING}Found 2 findings in 1 file (1 file checked).\n",
    )
    assert not (tmp_path / "m.py").exists()  # nothing written


def test_fix_on_stdin_echoes_what_it_cannot_fix_or_read(tmp_path):
    proc = zlint("--fix", "-", cwd=tmp_path, stdin=HAZARD)  # findings without a fix
    assert (proc.returncode, proc.stdout) == (1, HAZARD)
    assert proc.stderr == (
        f"Fixed 0 findings.\n-:5:8: {ZL101}\n-:7:12: {ZL102}\nFound 2 findings in 1 file (1 file checked).\n"
    )
    proc = zlint("--fix", "-q", "-", cwd=tmp_path, stdin="def f(:\n")
    assert (proc.returncode, proc.stdout) == (2, "def f(:\n")
    assert proc.stderr == "zlint: error: -: syntax error at 1:7: invalid syntax\n"


def test_diff_on_stdin(tmp_path):
    proc = zlint("--diff", "-q", "-", "--stdin-filename", "m.py", cwd=tmp_path, stdin=FIXABLE)
    assert (proc.returncode, proc.stderr) == (1, "")
    assert proc.stdout == (
        "--- a/m.py\n+++ b/m.py\n@@ -11,7 +11,7 @@\n def serve(model, requests):\n"
        "     compiled = torch.compile(model)\n     for batch, mask in requests:\n"
        "-        torch._dynamo.mark_dynamic(batch, 0)\n+        torch._dynamo.maybe_mark_dynamic(batch, 0)\n"
        "         step(batch)\n         out = compiled(batch, mask)\n     return out\n"
    )


@pytest.mark.parametrize(
    "args, message",
    [
        (("-", "src"), "`-` (stdin) cannot be combined with other paths"),
        (("--stdin-filename", "m.py", "src"), "--stdin-filename needs `-` (stdin) as the path"),
        (("--add-noqa", "-"), "--add-noqa cannot be used with `-` (stdin): it needs the file on disk"),
        (("--verify", "-"), "--verify cannot be used with `-` (stdin): it needs the file on disk"),
    ],
)
def test_stdin_misuse_is_one_line_exit_2(project, args, message):
    proc = zlint(*args, cwd=project, stdin=HAZARD)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"zlint: error: {message}\n")


# -- --exclude, --extend-exclude -------------------------------------------------------------------

def test_exclude_replaces_the_config_and_extend_exclude_adds_to_it(project):
    write(project, "pyproject.toml", '[tool.zlint]\nexclude = ["legacy"]\n')
    assert zlint("--select", "ZL101", ".", cwd=project).stdout == f"src/model.py:5:8: {ZL101}\n"
    # --exclude replaces [tool.zlint] exclude: legacy/ is linted again, src/ is not
    proc = zlint("--select", "ZL101", "--exclude", "src", ".", cwd=project)
    assert (proc.returncode, proc.stdout) == (1, f"legacy/old.py:5:8: {ZL101}\n")
    # --extend-exclude adds to it (comma-separated, patterns as in the config)
    proc = zlint("--select", "ZL101", "--extend-exclude", "src/*.py,other", ".", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", "zlint: error: .: no Python files found\n"
                                                           "Found 0 findings (0 files checked).\n")
    # the built-in excludes still apply under --exclude
    write(project, ".venv/lib/x.py", HAZARD)
    proc = zlint("--select", "ZL101", "--exclude", "legacy,src", ".", cwd=project)
    assert proc.stderr == "zlint: error: .: no Python files found\nFound 0 findings (0 files checked).\n"


def test_explicitly_named_files_are_linted_even_when_excluded(project):
    proc = zlint("--select", "ZL101", "--exclude", "legacy", "legacy/old.py", cwd=project)
    assert proc.stdout == f"legacy/old.py:5:8: {ZL101}\n"


# -- --quiet -----------------------------------------------------------------------------------

def test_quiet_prints_findings_and_errors_only(project):
    proc = zlint("-q", "--select", "ZL101", "src", "missing.py", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, f"src/model.py:5:8: {ZL101}\n")
    assert proc.stderr == "zlint: error: missing.py: no such file or directory\n"
    proc = zlint("--quiet", "src", cwd=project, stdin=None)
    assert (proc.returncode, proc.stderr) == (1, "")
    write(project, "m.py", FIXABLE)
    proc = zlint("--quiet", "--fix", "m.py", cwd=project)  # no "Fixed 1 finding." either
    assert (proc.returncode, proc.stdout, proc.stderr) == (1, REMAINING, "")


# -- --config ----------------------------------------------------------------------------------

def test_config_file_is_used_for_every_file_instead_of_discovery(project):
    write(project, "src/pyproject.toml", '[tool.zlint]\nselect = ["ZL102"]\n')  # discovery's pick
    write(project, "ci/zlint.toml", '[tool.zlint]\nignore = ["ZL102"]\nexclude = ["legacy"]\n')
    proc = zlint("--config", "ci/zlint.toml", ".", cwd=project)
    assert (proc.returncode, proc.stdout) == (1, f"src/model.py:5:8: {ZL101}\n")
    # command-line flags still win over it
    proc = zlint("--config", "ci/zlint.toml", "--ignore", "ZL101", "src", cwd=project)
    assert proc.stdout == f"src/model.py:7:12: {ZL102}\n"
    # and it is stdin's config too
    proc = zlint("--config", "ci/zlint.toml", "-", "--stdin-filename", "src/model.py", cwd=project, stdin=HAZARD)
    assert proc.stdout == f"src/model.py:5:8: {ZL101}\n"


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "zlint: error: none.toml: no such file"),
        ("[tool.zlint\n", "zlint: error: none.toml: invalid TOML: Expected ']' at the end of a table declaration "
                          "(at line 1, column 12)"),
        ("[tool.other]\n", "zlint: error: none.toml: has no [tool.zlint] table"),
        ('[tool.zlint]\nselect = ["ZL777"]\n', "zlint: error: none.toml: [tool.zlint]: unknown rule selector "
                                               "'ZL777' (see `zlint rules`)"),
    ],
)
def test_bad_config_file_is_one_line_exit_2(project, content, message):
    if content is not None:
        write(project, "none.toml", content)
    proc = zlint("--config", "none.toml", "src", cwd=project)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", message + "\n")


# -- zlint rule NAME -----------------------------------------------------------------------------

def test_rule_by_name_prints_the_same_doc_as_by_code(tmp_path):
    by_code = run_zlint("rule", "ZL102", cwd=tmp_path)
    by_name = run_zlint("rule", "size-truthiness", cwd=tmp_path)
    assert (by_name.returncode, by_name.stdout) == (0, by_code.stdout)
    assert by_name.stdout.startswith("# ZL102 size-truthiness\n")


def test_unknown_rule_name_is_one_line_exit_2(tmp_path):
    proc = run_zlint("rule", "size-truthy", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "zlint: error: unknown rule 'size-truthy' (see `zlint rules`)\n"


# -- docs-url ----------------------------------------------------------------------------------

def test_docs_url_must_be_a_url(project):
    write(project, "pyproject.toml", '[tool.zlint]\ndocs-url = "docs/site"\n')
    proc = zlint("src", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"zlint: error: {project / 'pyproject.toml'}: [tool.zlint] docs-url must be a URL such as "
        "'https://example.org/zlint/'\n"
    )


# -- opt-in rules: by their whole code ---------------------------------------------------------

UNPACK = "import torch\n\n\ndef f(qkv: torch.Tensor):\n    q, k, v = qkv  # noqa: ZL101\n    return q\n"
ZL203 = "m.py:5:15: ZL203 unpacking `qkv` pins its first dim to 3: errors under mark_dynamic; index it\n"
ZL901 = (
    "m.py:5:20: ZL901 unused `noqa`: ZL101 reported nothing on this line; remove the code so the comment "
    "does not hide a future finding\n"
)


@pytest.mark.parametrize(
    "args, shown",
    [
        ((), ""),
        (("--select", "ZL"), ""),
        (("--select", "ZL2"), ""),
        (("--select", "ZL20"), ""),
        (("--extend-select", "ZL2,ZL9"), ""),
        (("--select", "ZL203"), ZL203),
        (("--extend-select", "ZL203"), ZL203),
        (("--select", "ZL,ZL203,ZL901"), ZL203 + ZL901),
        (("--select", "ALL"), ZL203 + ZL901),
    ],
)
def test_opt_in_rules_run_only_when_named_whole(tmp_path, args, shown):
    write(tmp_path, "m.py", UNPACK)
    proc = zlint(*args, "m.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (1 if shown else 0, shown)
