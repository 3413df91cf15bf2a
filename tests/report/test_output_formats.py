"""The CI output formats end to end: GitHub annotations, JUnit XML, grouped and concise text,
``--output-file``, and exit codes with ``--exit-zero``."""

from __future__ import annotations

import json
import os
import stat
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import POOL_HAZARD as HAZARD  # noqa: E402
from conftest import run_zlint
from inprocess import zlint
from zlint.core.diagnostics import Diagnostic
from zlint.report.github import annotation
from zlint.report.writers import FORMATS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(2)\n", encoding="utf-8")
    return tmp_path


def _findings(project: Path, *paths: str) -> list[dict]:
    return json.loads(zlint("--format", "json", *paths, cwd=project).stdout)


def test_every_format_is_a_choice():
    assert {"text", "concise", "grouped", "json", "sarif", "github", "junit"} <= set(FORMATS)
    proc = run_zlint("--format", "xml", ".")
    assert proc.returncode == 2
    assert proc.stderr.startswith("zlint: error: argument --format: invalid choice: 'xml'")


def test_github_annotations(project):
    proc = zlint("--format", "github", ".", cwd=project)
    assert proc.returncode == 1
    expected = [
        f"::warning file=a.py,line={f['location']['row']},endLine={f['end_location']['row']},"
        f"col={f['location']['column']},endColumn={f['end_location']['column'] - 1},"
        f"title={f['code']}::{f['message']}"
        for f in _findings(project, ".")
    ]
    assert proc.stdout.splitlines() == expected
    assert [line.split(",")[1:3] for line in expected] == [["line=6", "endLine=6"], ["line=8", "endLine=8"]]
    assert expected[0].startswith("::warning file=a.py,line=6,endLine=6,col=8,endColumn=13,title=ZL101::")


def test_github_escapes_properties_and_data():
    diag = Diagnostic("dir,1/a:b%.py", 3, 4, "ZL101", "n", "50% off\nnext", end_line=3, end_column=9)
    assert annotation(diag) == (
        "::warning file=dir%2C1/a%3Ab%25.py,line=3,endLine=3,col=5,endColumn=9,title=ZL101::50%25 off%0Anext\n"
    )


def test_github_reports_unlintable_files_as_errors(project):
    (project / "broken.py").write_text("def f(:\n", encoding="utf-8")
    proc = zlint("--format", "github", ".", cwd=project)
    assert proc.returncode == 2
    assert proc.stdout.splitlines()[-1].startswith("::error file=broken.py,title=zlint::syntax error at 1")


def test_junit_has_one_testcase_per_file(project):
    (project / "broken.py").write_text("def f(:\n", encoding="utf-8")
    proc = zlint("--format", "junit", ".", cwd=project)
    assert proc.returncode == 2
    root = ET.fromstring(proc.stdout)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "1")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert sorted(cases) == ["a.py", "broken.py", "clean.py"]
    assert list(cases["clean.py"]) == []  # a clean file is a passing test
    [failure] = list(cases["a.py"])
    assert failure.tag == "failure" and failure.get("message") == "2 findings"
    found = [line.split(" ")[:2] for line in failure.text.splitlines()]
    assert found == [["a.py:6:8:", "ZL101"], ["a.py:8:8:", "ZL102"]]
    [error] = list(cases["broken.py"])
    assert error.tag == "error" and error.get("message").startswith("syntax error at 1:")


def test_concise_is_the_text_format_and_grouped_groups_by_file(project):
    (project / "b.py").write_text(HAZARD, encoding="utf-8")
    text = zlint(".", cwd=project).stdout
    assert zlint("--format", "concise", ".", cwd=project).stdout == text
    grouped = zlint("--format", "grouped", ".", cwd=project).stdout
    findings = _findings(project, ".")
    lines = [
        f"  {f['location']['row']}:{f['location']['column']} {f['code']} {f['message']}"
        f"  [{f['tier']} tier; {f['scope']}: {f['scope_reason']}]"
        for f in findings
    ]
    assert grouped.split("\n") == ["a.py:", *lines[:2], "", "b.py:", *lines[2:], ""]


def test_output_file_gets_the_report_and_stdout_stays_empty(project):
    expected = zlint("--format", "json", ".", cwd=project).stdout
    proc = zlint("--format", "json", "--output-file", "out/report.json", ".", cwd=project)
    assert proc.returncode == 2  # the folder does not exist: a one-line error
    assert proc.stderr.startswith("zlint: error: out/report.json: cannot write")
    proc = zlint("--format", "json", "--output-file", "report.json", ".", cwd=project)
    assert proc.returncode == 1 and proc.stdout == ""
    assert (project / "report.json").read_text(encoding="utf-8") == expected
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((project / "report.json").stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600


@pytest.mark.parametrize(
    "files, args, code",
    [
        ({"a.py": HAZARD}, [], 1),
        ({"a.py": HAZARD}, ["--exit-zero"], 0),
        ({"a.py": HAZARD, "broken.py": "def f(:\n"}, ["--exit-zero"], 2),
        ({"broken.py": "def f(:\n"}, ["--exit-zero", "--format", "sarif"], 2),
    ],
)
def test_exit_codes(tmp_path, files, args, code):
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert run_zlint(*args, ".", cwd=tmp_path).returncode == code


def test_github_annotation_level_follows_the_rule_severity():
    from zlint.core.diagnostics import Diagnostic
    from zlint.report.github import annotation

    def level(code: str) -> str:
        return annotation(Diagnostic("m.py", 3, 4, code, "name", "msg", 3, 9)).split(" ", 1)[0]

    # a wrong result is an error, an advisory (severity "info") a notice, the rest warnings
    assert (level("ZL104"), level("ZL417"), level("ZL101")) == ("::error", "::notice", "::warning")
