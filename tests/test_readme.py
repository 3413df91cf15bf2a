"""README promises that tests can hold it to: its length, the rule table, the commands (CI runs
the test command verbatim), the example output, the config snippet and its links."""

from __future__ import annotations

import re
import shlex
import sys

from conftest import ROOT
from docs_support import fenced_blocks, load_script
from zlint.core.registry import records
from zlint.core.settings import settings_from_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the project depends on tomli there
    import tomli as tomllib

README = (ROOT / "README.md").read_text(encoding="utf-8")
SYNC = load_script("sync_docs")


def _commands() -> list[str]:
    return [block.strip() for block in fenced_blocks(README, "sh")]


def test_readme_stays_short():
    assert len(README.splitlines()) <= 200


def test_rule_table_lists_every_rule_with_its_doc():
    table = README.split("<!-- rule-table -->", 1)[1].split("<!-- /rule-table -->", 1)[0]
    rows = re.findall(r"^\| (ZL\d{3}) \| \[([a-z0-9-]+)\]\(rules/(ZL\d{3}-[a-z0-9-]+)\.md\) \|", table, re.M)
    assert [(code, name) for code, name, _ in rows] == [(r.code, r.name) for r in records()]
    for _, _, doc in rows:
        assert (ROOT / "rules" / f"{doc}.md").is_file()
    # summaries and opt-in marks too: `python scripts/sync_docs.py --update` rewrites the table
    assert table.lstrip("\n") == SYNC.rule_table()


def test_opt_in_rules_say_so_in_the_table():
    for rule in records():
        row = next(line for line in README.splitlines() if line.startswith(f"| {rule.code} |"))
        assert row.endswith("(opt-in) |") == (not rule.default_enabled), row


def test_ci_runs_the_readme_test_command():
    test_command = next(c for c in _commands() if "pytest" in c)
    ci = (ROOT / ".ci" / "run").read_text()
    # the README's one-liner, step by step, is what CI runs
    lines = [line.strip() for line in ci.splitlines()]
    for step in test_command.split(" && ")[2:]:
        assert step.strip() in lines, step
    assert lines[-1] == test_command.split(" && ")[-1].strip(), "CI ends with the README's test run"


def test_quick_start_sets_up_like_ci_then_verifies_the_examples():
    setup_and_verify = next(c for c in _commands() if c.startswith("python3 -m venv") and "--verify" in c)
    test_command = next(c for c in _commands() if "pytest" in c)
    *setup, run = setup_and_verify.split(" && ")
    assert setup == test_command.split(" && ")[:-1]
    assert setup[0] == "python3 -m venv .venv"
    assert shlex.split(run) == ["zlint", "--verify", "examples/"]


def test_install_commands_work_from_a_clone_and_name_the_verify_extra():
    """zlint is not on PyPI: the install is from a clone (tests/test_packaging.py builds and
    installs the wheel ``pip install .`` makes); no command asks the index for zlint."""
    install = next(c for c in _commands() if c.startswith("git clone"))
    lines = [shlex.split(line.split("#", 1)[0]) for line in install.splitlines()]
    assert lines[0] == ["git", "clone", "<ZLINT_REPO_URL>", "zlint", "&&", "cd", "zlint"]
    assert ["pip", "install", "."] in lines
    assert ["pip", "install", ".[verify]"] in lines
    for page in (README, *(p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md"))):
        assert not re.search(r"pip install '?zlint\b", page)


def test_example_output_is_what_zlint_prints_now():
    shown = SYNC.output_blocks(README)
    assert [command for command, _ in shown] == ["$ zlint examples/likes_pooler.py"]
    # every finding of the example file, then the summary; regenerate with sync_docs.py --update
    assert SYNC.check(ROOT / "README.md") == []
    lines = shown[0][1].splitlines()
    assert lines[-1] == f"Found {len(lines) - 1} findings in 1 file (1 file checked)."
    assert all(line.startswith("examples/likes_pooler.py:") for line in lines[:-1])


def test_config_snippet_is_accepted_by_the_settings_parser():
    (snippet,) = fenced_blocks(README, "toml")
    table = tomllib.loads(snippet)["tool"]["zlint"]
    settings = settings_from_table(table, "pyproject.toml", ROOT)
    assert settings.ignore == ("ZL103",)
    assert settings.torch_version == "2.13.0"


def test_relative_links_point_at_files_in_the_repository():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    relative = [link for link in links if "://" not in link]
    assert any(link.startswith("docs/") for link in relative)
    for link in relative:
        assert (ROOT / link).exists(), link
