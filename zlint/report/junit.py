"""JUnit XML: one test case per linted file, failed when the file has findings, errored when it
could not be linted. CI systems that show test reports show zlint's results next to the tests."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from zlint.core.diagnostics import Diagnostic
from zlint.report.run import Run


def junit(diagnostics: list[Diagnostic], run: Run | None = None) -> str:
    run = run or Run()
    by_file: dict[str, list[Diagnostic]] = {}
    for path in run.files:
        by_file.setdefault(path, [])
    for d in diagnostics:
        by_file.setdefault(d.path, []).append(d)
    errors = {}
    for error in run.errors:
        by_file.setdefault(error.path, [])
        errors.setdefault(error.path, []).append(error.reason)

    failures = sum(1 for path, found in by_file.items() if found and path not in errors)
    counts = {"tests": str(len(by_file)), "failures": str(failures), "errors": str(len(errors))}
    root = ET.Element("testsuites", name="zlint", **counts)
    suite = ET.SubElement(root, "testsuite", name="zlint", **counts)
    for path, found in by_file.items():
        case = ET.SubElement(suite, "testcase", name=path, classname="zlint", file=path)
        if path in errors:
            reason = "; ".join(errors[path])
            ET.SubElement(case, "error", message=reason, type="zlint.error").text = reason
        elif found:
            noun = "finding" if len(found) == 1 else "findings"
            failure = ET.SubElement(case, "failure", message=f"{len(found)} {noun}", type="zlint")
            failure.text = "".join(f"{d.path}:{d.line}:{d.column + 1}: {d.code} {d.message}\n" for d in found)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
