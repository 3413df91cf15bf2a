"""SARIF 2.1.0 output, the format GitHub code scanning and other result viewers import.

One run: the tool driver lists every rule (id, name, short and full description, the whole doc
as help, and as help URI the rule's page on the docs site when one is configured); each finding
is a result with its rule, level (the rule's severity), message, physical location, and its tier
and scope as properties. Columns count code points, which the run declares (``columnKind``).
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import metadata
from pathlib import Path, PurePath
from urllib.parse import quote

from zlint import __version__
from zlint.adoption.fingerprint import FINGERPRINT_KEY, line_fingerprints
from zlint.core.diagnostics import Diagnostic
from zlint.core.registry import RuleRecord, records
from zlint.core.rule_docs import doc_text, rule_url
from zlint.report.run import Run
from zlint.report.severity import severity_of

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"


@lru_cache(maxsize=1)
def project_url() -> str | None:
    """The repository URL from the installed package metadata, when the project declares one."""
    try:
        entries = metadata.metadata("zlint").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    for entry in entries:
        label, _, url = entry.partition(",")
        if label.strip().lower() in {"repository", "source", "source code"} and url.strip():
            return url.strip().rstrip("/")
    return None


def help_uri(code: str, docs_url: str | None) -> str | None:
    """The rule's page on the docs site at ``docs_url`` (:func:`zlint.core.rule_docs.docs_base`);
    None without a site: the whole doc is in ``help`` anyway, and a path on the machine that
    linted means nothing where the report is read."""
    return rule_url(code, docs_url)


def _section(doc: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", doc, re.S | re.M)
    return " ".join(match.group(1).split()) if match else ""


#: a rule's severity as a SARIF level
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def rule_descriptor(rule: RuleRecord, docs_url: str | None = None) -> dict:
    """The driver's entry for one rule, from its registry record and its doc."""
    doc = doc_text(rule.code) or ""
    descriptor: dict = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _section(doc, "What it does") or rule.summary},
        "defaultConfiguration": {"level": SARIF_LEVELS[rule.severity], "enabled": rule.default_enabled},
        "properties": {"family": rule.family, "kind": rule.kind, "tier": rule.tier},
    }
    if doc:
        descriptor["help"] = {"text": doc, "markdown": doc}
    uri = help_uri(rule.code, docs_url)
    if uri:
        descriptor["helpUri"] = uri
    return descriptor


def artifact_location(path: str) -> dict:
    """Relative paths resolve against %SRCROOT% (the working directory), as code scanning expects."""
    pure = PurePath(path)
    if pure.is_absolute():
        return {"uri": Path(path).as_uri()}
    return {"uri": quote(pure.as_posix()), "uriBaseId": SRCROOT}


def _region(d: Diagnostic) -> dict:
    region = {"startLine": d.line, "startColumn": d.column + 1}
    if d.end_line >= d.line and (d.end_line, d.end_column) > (d.line, d.column):
        region.update(endLine=d.end_line, endColumn=d.end_column + 1)  # SARIF's end is exclusive
    return region


def _result(d: Diagnostic, index: int, fingerprint: str | None) -> dict:
    result: dict = {
        "ruleId": d.code,
        "ruleIndex": index,
        "level": severity_of(d.code),
        "message": {"text": d.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": artifact_location(d.path), "region": _region(d)}}
        ],
    }
    if d.function:
        result["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": d.function, "kind": "function"}]
    if fingerprint:
        result["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    # what the finding costs and where its code runs (code scanning keeps result properties)
    properties: dict = {"tier": d.tier, "scope": d.scope}
    if d.scope_reason:
        properties["scopeReason"] = d.scope_reason
    if getattr(d, "compiled", False):
        properties["compiledScope"] = True
    if getattr(d, "verify", None):  # what --verify observed: status, mode, evidence
        properties["verify"] = d.verify
    result["properties"] = properties
    return result


def sarif(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    """The whole SARIF log as JSON text."""
    run = run or Run()
    rules = [rule_descriptor(rule, run.docs_url) for rule in records()]
    for d in diagnostics:  # codes no registered rule owns (e.g. runtime findings of --verify)
        if all(r["id"] != d.code for r in rules):
            rules.append({"id": d.code, "name": d.name, "shortDescription": {"text": d.name}})
    index = {r["id"]: i for i, r in enumerate(rules)}
    fingerprints = line_fingerprints(diagnostics)
    driver: dict = {"name": "zlint", "version": __version__, "semanticVersion": __version__, "rules": rules}
    information = run.docs_url or project_url()
    if information:
        driver["informationUri"] = information
    notifications = [
        {
            "level": "error",
            "message": {"text": error.reason},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(error.path)}}],
        }
        for error in run.errors
    ]
    log = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": driver},
                "invocations": [
                    {"executionSuccessful": not run.errors, "toolExecutionNotifications": notifications}
                ],
                "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri().rstrip("/") + "/"}},
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, index[d.code], fingerprints.get(d)) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2) + "\n"
