"""``--format sarif`` is valid SARIF 2.1.0 (checked against the official OASIS schema) and says
what code scanning needs: every rule with its descriptions and doc, every finding with rule,
level, message and region, files that failed as notifications."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from conftest import ROOT
from inprocess import zlint
from zlint.core.registry import RULES_BY_CODE
from zlint.core.rule_docs import doc_path

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft4Validator(SCHEMA, format_checker=jsonschema.FormatChecker())

from conftest import POOL_HAZARD as HAZARD  # noqa: E402


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "model file.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "pkg" / "clean.py").write_text("import torch\n\nx = torch.ones(2)\n", encoding="utf-8")
    return tmp_path


def _sarif(project: Path, *args: str) -> tuple[dict, int]:
    proc = zlint("--format", "sarif", *args, "pkg", cwd=project)
    assert proc.stdout, proc.stderr
    return json.loads(proc.stdout), proc.returncode


def _errors(log: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(log)]


def test_output_is_valid_sarif_2_1_0(project):
    log, code = _sarif(project)
    assert code == 1
    assert _errors(log) == []
    assert log["version"] == "2.1.0"


def test_the_validator_rejects_broken_logs(project):
    """The schema check can fail: a result without a message, a column of 0, a bad level."""
    log, _ = _sarif(project)
    result = log["runs"][0]["results"][0]
    del result["message"]
    result["locations"][0]["physicalLocation"]["region"]["startColumn"] = 0
    result["level"] = "severe"
    assert len(_errors(log)) == 3


def test_driver_lists_every_rule_with_descriptions_and_doc(project):
    log, _ = _sarif(project)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == list(RULES_BY_CODE)
    for descriptor in rules:
        rule = RULES_BY_CODE[descriptor["id"]]
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"]  # the doc's "What it does"
        assert descriptor["defaultConfiguration"]["enabled"] is rule.default_enabled
        if doc_path(rule.code) is not None:  # a missing doc is test_rule_docs' business
            assert descriptor["help"]["markdown"].startswith(f"# {rule.code} {rule.name}\n")
        # no docs site configured (the project publishes none yet): no link, never a local file
        assert "helpUri" not in descriptor


def test_help_uri_is_the_rule_page_on_the_configured_docs_site(project, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.zlint]\ndocs-url = "https://docs.example.org/zlint"\n')
    log, _ = _sarif(project)
    driver = log["runs"][0]["tool"]["driver"]
    uris = {r["id"]: r.get("helpUri") for r in driver["rules"]}
    assert uris["ZL101"] == "https://docs.example.org/zlint/rules/ZL101-size-compared-with-zero-or-one/"
    assert uris["ZL901"] == "https://docs.example.org/zlint/rules/ZL901-unused-noqa/"
    for code, rule in RULES_BY_CODE.items():
        assert uris[code] == f"https://docs.example.org/zlint/rules/{code}-{rule.name}/"
    assert driver["informationUri"] == "https://docs.example.org/zlint/"
    assert _errors(log) == []
    # the environment wins over the setting (a CI mirror of the docs)
    monkeypatch.setenv("ZLINT_DOCS_URL", "https://mirror.example.com/z/")
    log, _ = _sarif(project)
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert (rule["id"], rule["helpUri"]) == ("ZL000", "https://mirror.example.com/z/rules/ZL000-file-not-linted/")


def test_results_match_the_json_output(project):
    log, _ = _sarif(project)
    findings = json.loads(zlint("--format", "json", "pkg", cwd=project).stdout)
    run = log["runs"][0]
    results = run["results"]
    assert [(r["ruleId"], r["message"]["text"]) for r in results] == [(f["code"], f["message"]) for f in findings]
    assert [r["ruleId"] for r in results] == ["ZL101", "ZL102"]
    for result, finding in zip(results, findings):
        assert result["level"] == "warning"
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]
        physical = location["physicalLocation"]
        # relative to the checkout, spaces escaped, resolved through %SRCROOT%
        assert physical["artifactLocation"] == {"uri": "pkg/model%20file.py", "uriBaseId": "%SRCROOT%"}
        region = physical["region"]
        start = finding["location"]
        assert (region["startLine"], region["startColumn"]) == (start["row"], start["column"])
        assert (region["endLine"], region["endColumn"]) == (
            finding["end_location"]["row"], finding["end_location"]["column"],
        )
        assert location["logicalLocations"] == [{"fullyQualifiedName": "pool", "kind": "function"}]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [6, 8]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_a_file_that_cannot_be_linted_is_a_notification(project):
    (project / "pkg" / "broken.py").write_text("def f(:\n", encoding="utf-8")
    log, code = _sarif(project)
    assert code == 2
    assert _errors(log) == []
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].startswith("syntax error at 1:")
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/broken.py"


def test_fingerprints_survive_moved_lines(project):
    before, _ = _sarif(project)
    path = project / "pkg" / "model file.py"
    path.write_text("# a new header\n\n" + HAZARD, encoding="utf-8")
    after, _ = _sarif(project)

    def prints(log):
        return [r["partialFingerprints"] for r in log["runs"][0]["results"]]

    def lines(log):
        return [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in log["runs"][0]["results"]]

    assert lines(after) == [line + 2 for line in lines(before)]
    assert prints(after) == prints(before)


def test_compiled_scope_and_verify_evidence_are_result_properties(tmp_path, monkeypatch):
    from zlint.core.diagnostics import Diagnostic
    from zlint.report.sarif import sarif

    monkeypatch.chdir(tmp_path)
    evidence = {"status": "CONFIRMED", "mode": "default", "evidence": {"kind": "recompile", "sizes": [1]}}
    diags = [
        Diagnostic(
            "m.py", 3, 4, "ZL101", "size-compared-with-zero-or-one", "msg", 3, 9, "f", compiled=True,
            verify=evidence, tier="single-graph", scope="compiled", scope_reason="forward of Net",
        ),
        Diagnostic("m.py", 5, 0, "ZL899", "runtime-only", "seen only at run time", 5, 1),
        Diagnostic("m.py", 7, 0, "ZL104", "size-zero-branch-with-size-oblivious", "msg", 7, 1, scope="never"),
    ]
    log = json.loads(sarif(diags))
    assert _errors(log) == []
    first, second, third = log["runs"][0]["results"]
    assert first["properties"] == {
        "tier": "single-graph", "scope": "compiled", "scopeReason": "forward of Net",
        "compiledScope": True, "verify": evidence,
    }
    assert second["properties"] == {"tier": "default", "scope": "unknown"}
    # the level is the rule's severity: a wrong result is an error, the rest are warnings
    assert (first["level"], second["level"], third["level"]) == ("warning", "warning", "error")
    rules = {r["id"]: r for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["ZL104"]["defaultConfiguration"]["level"] == "error"
    assert rules["ZL101"]["defaultConfiguration"]["level"] == "warning"
    # a code no registered rule owns still gets a descriptor, so ruleIndex stays valid
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert rules[second["ruleIndex"]]["id"] == "ZL899"
