"""The zlint command end to end, in a subprocess: output, exit codes, config, noqa, bad input."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT, run_zlint
from conftest import SIZE_HAZARD as HAZARD
from zlint.core import registry

CLEAN = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    if x.dim() == 1:
        return x
    return x.sum(0) / max(x.shape[0], 1)
"""


def write(base: Path, rel: str, text: str) -> Path:
    path = base / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    write(tmp_path, "src/model.py", HAZARD)
    write(tmp_path, "src/clean.py", CLEAN)
    return tmp_path


def test_text_output_lines_columns_and_exit_code(project):
    proc = run_zlint("src", cwd=project)
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert [line.split(" ", 2)[:2] for line in lines] == [
        ["src/model.py:5:8:", "ZL101"],
        ["src/model.py:7:12:", "ZL102"],
    ]
    assert "Found 2 findings in 1 file (2 files checked)." in proc.stderr
    assert "Traceback" not in proc.stderr


def test_clean_files_exit_zero(project):
    proc = run_zlint("src/clean.py", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, "")


def test_json_output_is_ruff_shaped(project):
    proc = run_zlint("--format", "json", "src/model.py", cwd=project)
    assert proc.returncode == 1
    data = json.loads(proc.stdout)
    assert [(d["code"], d["location"], d["end_location"], d["function"]) for d in data] == [
        ("ZL101", {"row": 5, "column": 8}, {"row": 5, "column": 22}, "pool"),
        ("ZL102", {"row": 7, "column": 12}, {"row": 7, "column": 21}, "pool"),
    ]
    assert data[0]["filename"] == "src/model.py"
    assert data[0]["name"] == "size-compared-with-zero-or-one"
    assert data[0]["url"] is None  # no docs site configured: no link (never a relative path)
    env = {"ZLINT_DOCS_URL": "https://docs.example.org/zlint/"}
    linked = json.loads(run_zlint("--format", "json", "src/model.py", cwd=project, env=env).stdout)
    assert [d["url"] for d in linked] == [
        "https://docs.example.org/zlint/rules/ZL101-size-compared-with-zero-or-one/",
        "https://docs.example.org/zlint/rules/ZL102-size-truthiness/",
    ]


def test_select_ignore_and_prefixes(project):
    assert run_zlint("--select", "ZL102", "src", cwd=project).stdout.count("ZL1") == 1
    assert "ZL101" not in run_zlint("--ignore", "ZL101", "src", cwd=project).stdout
    proc = run_zlint("--select", "ZL1", "--ignore", "ZL10", "src", cwd=project)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert run_zlint("--select", "ALL", "src", cwd=project).returncode == 1


def test_unknown_selector_is_a_usage_error(project):
    proc = run_zlint("--select", "ZL999x", "src", cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "zlint: error: unknown rule selector 'ZL999x' (see `zlint rules`)"


def test_statistics_and_exit_zero(project):
    proc = run_zlint("--statistics", "--exit-zero", "src", cwd=project)
    assert proc.returncode == 0
    # count, code, name, then the findings per cost tier and per scope (the tiers are the rules')
    tiers = {f["code"]: f["tier"] for f in json.loads(run_zlint("--format", "json", "src", cwd=project).stdout)}
    assert proc.stdout.splitlines() == [
        f"1\tZL101\tsize-compared-with-zero-or-one\t{tiers['ZL101']} 1\tunknown 1",
        f"1\tZL102\tsize-truthiness\t{tiers['ZL102']} 1\tunknown 1",
    ]
    as_json = json.loads(run_zlint("--statistics", "--format", "json", "src", cwd=project).stdout)
    assert [(row["code"], row["count"], row["severity"], row["scope"]) for row in as_json] == [
        ("ZL101", 1, "warning", {"unknown": 1}),
        ("ZL102", 1, "warning", {"unknown": 1}),
    ]


def test_exit_zero_still_fails_on_errors(project):
    write(project, "src/broken.py", "def f(:\n")
    proc = run_zlint("--exit-zero", "src", cwd=project)
    assert proc.returncode == 2


def test_version_rules_and_rule_docs():
    proc = run_zlint("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("zlint ")
    listing = run_zlint("rules")
    assert listing.returncode == 0 and listing.stderr == ""
    assert "ZL101  size-compared-with-zero-or-one" in listing.stdout
    # every rule once; the opt-in ones marked once, at the end of the line
    lines = {line.split()[0]: line for line in listing.stdout.splitlines()}
    assert set(lines) == set(registry.RULES_BY_CODE)
    assert lines["ZL418"].endswith("mark the dims that vary  (opt-in)")
    for code, rule in registry.RULES_BY_CODE.items():
        assert lines[code].count("(opt-in)") == (0 if rule.default_enabled else 1), lines[code]
        assert lines[code].endswith("  (opt-in)") is (not rule.default_enabled)
    doc = run_zlint("rule", "zl101")
    assert doc.returncode == 0
    assert doc.stdout == (ROOT / "rules" / "ZL101-size-compared-with-zero-or-one.md").read_text()
    missing = run_zlint("rule", "ZL999")
    assert missing.returncode == 2 and "unknown rule 'ZL999'" in missing.stderr


# -- discovery ---------------------------------------------------------------------------------

def test_directories_are_recursed_with_default_excludes(tmp_path):
    write(tmp_path, "pkg/a.py", HAZARD)
    write(tmp_path, "pkg/stub.pyi", "import torch\ndef f(x: torch.Tensor) -> int: ...\n")
    for excluded in (".venv/lib/x.py", "build/x.py", "pkg/__pycache__/x.py", ".git/x.py", "dist/x.py"):
        write(tmp_path, excluded, HAZARD)
    write(tmp_path, "pkg/notes.txt", HAZARD)
    proc = run_zlint(".", cwd=tmp_path)
    assert {line.split(":")[0] for line in proc.stdout.splitlines()} == {"pkg/a.py"}
    assert proc.stderr == "Found 2 findings in 1 file (2 files checked).\n"  # a.py and the stub


def test_explicit_file_is_linted_whatever_its_name(tmp_path):
    write(tmp_path, "script", HAZARD)
    assert run_zlint("script", cwd=tmp_path).stdout.startswith("script:5:8: ZL101")


# -- config ------------------------------------------------------------------------------------

def test_pyproject_config_found_by_walking_up(project):
    write(project, "pyproject.toml", '[tool.zlint]\nignore = ["ZL102"]\n')
    proc = run_zlint("model.py", cwd=project / "src")
    assert [line.split()[1] for line in proc.stdout.splitlines()] == ["ZL101"]


def test_cli_flags_override_config(project):
    write(project, "pyproject.toml", '[tool.zlint]\nselect = ["ZL102"]\n')
    assert "ZL101" not in run_zlint("src", cwd=project).stdout
    assert "ZL101" in run_zlint("--select", "ZL101", "src", cwd=project).stdout


def test_per_file_ignores_and_exclude(project):
    write(project, "tests/test_model.py", HAZARD)
    write(project, "legacy/old.py", HAZARD)
    write(
        project,
        "pyproject.toml",
        '[tool.zlint]\nexclude = ["legacy"]\n'
        '[tool.zlint.per-file-ignores]\n"tests/*" = ["ZL1"]\n"src/model.py" = ["ZL102"]\n',
    )
    proc = run_zlint(".", cwd=project)
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [["src/model.py:5:8:", "ZL101"]]


@pytest.mark.parametrize(
    "config, message",
    [
        ('[tool.zlint]\nselct = ["ZL1"]\n', "unknown key 'selct' in [tool.zlint]"),
        ('[tool.zlint]\nselect = ["ZL777"]\n', "unknown rule selector 'ZL777'"),
        ('[tool.zlint]\nselect = "ZL1"\n', "select must be a list of strings"),
        ("[tool.zlint\n", "invalid TOML"),
    ],
)
def test_bad_config_is_one_line_exit_2(project, config, message):
    write(project, "pyproject.toml", config)
    proc = run_zlint("src", cwd=project)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("zlint: error: ") and message in lines[0]
    assert "pyproject.toml" in lines[0]


# line 5: a ZL102 finding, and a noqa for ZL101 that suppresses nothing (the opt-in ZL901)
UNUSED_NOQA = """\
import torch


def pool(x: torch.Tensor) -> torch.Tensor:
    if not x.numel():  # noqa: ZL101
        return x.sum(0)
    return x.mean(0)
"""


def _rows(proc) -> list[tuple[str, str]]:
    return [(line.split(" ")[0].rsplit(":", 2)[0], line.split(" ")[1]) for line in proc.stdout.splitlines()]


@pytest.mark.parametrize(
    "config, flags, rows",
    [
        ('select = ["zl101"]', (), [("src/model.py:5", "ZL101")]),
        ('ignore = ["zl101"]', (), [("src/model.py:7", "ZL102"), ("src/unused.py:5", "ZL102")]),
        # an opt-in rule is enabled only by its whole code: the lowercase one counts
        ('extend-select = ["zl901"]', (), [
            ("src/model.py:5", "ZL101"), ("src/model.py:7", "ZL102"), ("src/unused.py:5", "ZL102"),
            ("src/unused.py:5", "ZL901"),
        ]),
        ('[tool.zlint.per-file-ignores]\n"src/*" = ["zl102"]', (), [("src/model.py:5", "ZL101")]),
        ("", ("--select", "zl1", "--ignore", "zl102"), [("src/model.py:5", "ZL101")]),
        ("", ("--extend-select", "zl901", "--ignore", "zl102"),
         [("src/model.py:5", "ZL101"), ("src/unused.py:5", "ZL901")]),
    ],
    ids=["select", "ignore", "extend-select", "per-file-ignores", "cli-select-ignore", "cli-extend-select"],
)
def test_lowercase_codes_are_the_same_codes(project, config, flags, rows):
    write(project, "src/unused.py", UNUSED_NOQA)
    write(project, "pyproject.toml", f"[tool.zlint]\n{config}\n")
    lower = run_zlint(*flags, "--no-cache", "src", cwd=project)
    assert lower.returncode == 1, lower.stderr
    assert _rows(lower) == rows
    write(project, "pyproject.toml", f"[tool.zlint]\n{_upper_codes(config)}\n")
    upper = run_zlint(*map(_upper_codes, flags), "--no-cache", "src", cwd=project)
    assert _rows(upper) == rows


def _upper_codes(text: str) -> str:
    return re.sub(r"\bzl(?=\d)", "ZL", text)


def test_a_lowercase_code_that_names_no_rule_is_still_an_error(project):
    write(project, "pyproject.toml", '[tool.zlint]\nignore = ["zl777"]\n')
    proc = run_zlint("src", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        f"zlint: error: {project / 'pyproject.toml'}: [tool.zlint]: unknown rule selector 'zl777' (see `zlint rules`)\n"
    )
    (project / "pyproject.toml").unlink()
    proc = run_zlint("--extend-select", "zl7", "src", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "zlint: error: unknown rule selector 'zl7' (see `zlint rules`)\n"


def _shipped_torch() -> str:
    from zlint.core.torch_versions import format_version, known_versions

    return ", ".join(format_version(v) for v in known_versions())


@pytest.mark.parametrize(
    "value, message",
    [
        ("1.0", "torch-version '1.0' is not supported: zlint supports torch 2.0 to 2.x (facts shipped for {shipped}; "
         "other releases use the nearest)"),
        ("3.1", "torch-version '3.1' is not supported: zlint supports torch 2.0 to 2.x (facts shipped for {shipped}; "
         "other releases use the nearest)"),
        ("2.13x", "not a torch version: '2.13x' (expected e.g. '2.13' or '2.13.0')"),
        ("2.", "not a torch version: '2.' (expected e.g. '2.13' or '2.13.0')"),
    ],
)
def test_unsupported_or_malformed_torch_version_is_one_line_exit_2(project, value, message):
    write(project, "pyproject.toml", f'[tool.zlint]\ntorch-version = "{value}"\n')
    proc = run_zlint("src", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, "")
    expected = message.format(shipped=_shipped_torch())
    assert proc.stderr == f"zlint: error: {project / 'pyproject.toml'}: [tool.zlint] {expected}\n"


@pytest.mark.parametrize("value", ["2.0", "2.13.0+cpu", "2.15.0rc1"])
def test_torch_versions_zlint_supports_are_accepted(project, value):
    write(project, "pyproject.toml", f'[tool.zlint]\ntorch-version = "{value}"\n')
    proc = run_zlint("--select", "ZL101", "src", cwd=project)
    assert proc.returncode == 1, proc.stderr
    assert _rows(proc) == [("src/model.py:5", "ZL101")]


def test_missing_verify_examples_file_is_one_line_exit_2_without_verify(project):
    """The file is checked when the settings are read: a plain run says what a later --verify
    run would fail on, naming the file as written, where it was looked for, and the config."""
    write(project, "pyproject.toml", '[tool.zlint]\n[tool.zlint.verify]\nexamples = ["inputs/examples.py"]\n')
    proc = run_zlint("src", cwd=project)
    assert (proc.returncode, proc.stdout) == (2, "")
    missing = (project / "inputs" / "examples.py").resolve()
    assert proc.stderr == (
        f"zlint: error: {project / 'pyproject.toml'}: [tool.zlint.verify] examples: "
        f"no such file: 'inputs/examples.py' ({missing})\n"
    )
    write(project, "inputs/examples.py", "")
    assert run_zlint("src", cwd=project).returncode == 1


def test_pyproject_without_zlint_table_is_ignored(project):
    write(project, "pyproject.toml", '[project]\nname = "x"\n')
    assert run_zlint("src", cwd=project).returncode == 1


# -- suppression -------------------------------------------------------------------------------

def test_noqa_comments(tmp_path):
    write(
        tmp_path,
        "m.py",
        """\
        def f(x, y):
            if x.size(0) == 1:  # noqa
                pass
            if x.size(0) == 1:  # noqa: ZL101
                pass
            if x.size(0) == 1:  # noqa:ZL102,ZL103
                pass
            if x.size(0) == 1 or not y.numel():  # NOQA: ZL102 ZL101
                pass
            if x.size(0) == 1:  # noqa: ZL1
                pass
        """,
    )
    proc = run_zlint("m.py", cwd=tmp_path)
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [["m.py:6:8:", "ZL101"]]


def test_file_level_noqa(tmp_path):
    write(tmp_path, "a.py", "# zlint: noqa\n" + HAZARD)
    write(tmp_path, "b.py", "# zlint: noqa: ZL101\n" + HAZARD)
    proc = run_zlint("a.py", "b.py", cwd=tmp_path)
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [["b.py:8:12:", "ZL102"]]


# -- bad input ---------------------------------------------------------------------------------

def test_bad_files_get_one_line_each_and_the_rest_is_linted(tmp_path):
    write(tmp_path, "good.py", HAZARD)
    write(tmp_path, "syntax.py", "def f(:\n    pass\n")
    (tmp_path / "latin.py").write_bytes(b"x = '\xe9t\xe9'\n")
    (tmp_path / "nul.py").write_bytes(b"x = 1\x00\n")
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "nopy").mkdir()
    (tmp_path / "nopy" / "README").write_text("hi")
    proc = run_zlint("good.py", "syntax.py", "latin.py", "nul.py", "empty.py", "missing.py", "nopy", cwd=tmp_path)
    assert proc.returncode == 2
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [
        ["good.py:5:8:", "ZL101"], ["good.py:7:12:", "ZL102"]
    ]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("zlint: error:")]
    assert errors == [
        "zlint: error: syntax.py: syntax error at 1:7: invalid syntax",
        "zlint: error: latin.py: not valid utf-8 (byte 0xe9 at offset 5)",
        "zlint: error: nul.py: source contains null bytes",
        "zlint: error: missing.py: no such file or directory",
        "zlint: error: nopy: no Python files found",
    ]
    assert "Traceback" not in proc.stderr


def test_encoding_cookie_and_bom_are_honoured(tmp_path):
    (tmp_path / "cookie.py").write_bytes(
        b"# -*- coding: latin-1 -*-\ns = '\xe9'\ndef f(x):\n    if x.numel():\n        pass\n"
    )
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfdef f(x):\n    if x.numel():\n        pass\n")
    proc = run_zlint("cookie.py", "bom.py", cwd=tmp_path)
    assert proc.returncode == 1
    # findings come sorted by path, whatever the order of the arguments
    assert [line.split(" ")[:2] for line in proc.stdout.splitlines()] == [
        ["bom.py:2:8:", "ZL102"], ["cookie.py:4:8:", "ZL102"]
    ]


def test_linting_never_writes(project):
    # only zlint's own result cache may appear (tests/engine/test_cache.py covers it)
    def files():
        return {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and ".zlint_cache" not in p.parts}

    before = files()
    run_zlint("src", cwd=project)
    assert files() == before


def test_usage_error_is_one_line(tmp_path):
    proc = run_zlint("--format", "xml", cwd=tmp_path)
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert proc.stderr.startswith("zlint: error: argument --format")


@pytest.mark.parametrize("value", ["0", "-1", "-8", "two", "1.5", ""])
def test_jobs_must_be_a_positive_integer(tmp_path, value):
    (tmp_path / "m.py").write_text("x = 1\n")
    result = run_zlint("--no-cache", "--jobs", value, "m.py", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"zlint: error: argument --jobs: expected a positive integer, got {value!r}\n"


@pytest.mark.parametrize("value", ["1", "2", "16"])
def test_positive_jobs_are_accepted(tmp_path, value):
    (tmp_path / "m.py").write_text("import torch\n\n\ndef f(x):\n    if x.size(0) == 1:\n        return x\n")
    result = run_zlint("--no-cache", "--jobs", value, "--select", "ZL101", "m.py", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, "Found 1 finding in 1 file (1 file checked).\n")
    assert result.stdout.startswith("m.py:5:8: ZL101 ")


def test_examples_flag_every_hazard_and_no_fixed_version():
    proc = run_zlint("examples", cwd=ROOT)
    flagged = {line.split(":")[0] for line in proc.stdout.splitlines()}
    hazards = {
        f"examples/{p.name}"
        for p in (ROOT / "examples").glob("*.py")
        if not p.stem.endswith("_fixed") and p.name != "zlint_examples.py"  # --verify's inputs
    }
    fixed = {f"examples/{p.name}" for p in (ROOT / "examples").glob("*_fixed.py")}
    assert fixed and not (flagged & fixed)
    assert hazards <= flagged


def test_the_summary_counts_what_the_target_hid_and_says_how_to_see_it(tmp_path):
    """``--target default`` hides the single-graph findings: the run says how many, and how to
    see them, rather than report a clean file."""
    (tmp_path / "likes.py").write_bytes((ROOT / "examples" / "likes_pooler.py").read_bytes())
    done = run_zlint("--no-cache", "--target", "default", "likes.py", cwd=tmp_path)
    assert (done.returncode, [line.split(" ")[0] for line in done.stdout.splitlines()]) == (1, ["likes.py:24:12:"])
    assert done.stderr.splitlines() == [
        "zlint: 3 findings of the single-graph tier hidden by target = default; --target single-graph shows them",
        "Found 1 finding in 1 file (1 file checked; 3 hidden: 3 single-graph).",
    ]
    assert run_zlint("--no-cache", "likes.py", cwd=tmp_path).stderr.splitlines()[-1] == (
        "Found 4 findings in 1 file (1 file checked)."
    )
