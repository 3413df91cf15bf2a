"""README promises that tests can hold it to: the rule table and the CI command."""

from __future__ import annotations

import re

from conftest import ROOT
from zlint.registry import records

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rule_table_lists_every_rule_with_its_doc():
    table = README.split("<!-- rule-table -->", 1)[1].split("<!-- /rule-table -->", 1)[0]
    rows = re.findall(r"^\| (ZL\d{3}) \| \[([a-z0-9-]+)\]\(rules/(ZL\d{3}-[a-z0-9-]+)\.md\) \|", table, re.M)
    assert [(code, name) for code, name, _ in rows] == [(r.code, r.name) for r in records()]
    for _, _, doc in rows:
        assert (ROOT / "rules" / f"{doc}.md").is_file()


def test_ci_runs_the_readme_test_command():
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.S)
    test_command = next(c for c in commands if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text()
    # the README's one-liner, step by step, is what CI runs
    for step in test_command.split(" && ")[2:]:
        assert step.strip() in ci, step
