"""ZL901 unused-noqa (opt-in): a ``# noqa: ZL...`` code that suppresses nothing is reported;
blanket noqa, other tools' codes, disabled rules and --verify-only codes are left alone."""

from __future__ import annotations

from conftest import ALL, codes_at, lint
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source

HEAD = "import torch\n\n\ndef f(x: torch.Tensor):\n    n = x.size(0)\n"


def test_opt_in_only():
    source = HEAD + "    return x  # noqa: ZL101\n"
    assert lint_source(source, "t.py", Settings()).diagnostics == []
    assert codes_at(source, Settings(extend_select=("ZL901",))) == [(6, 15, "ZL901")]


def test_used_codes_and_prefixes_are_quiet():
    source = HEAD + (
        "    if n == 1:  # noqa: ZL101\n"
        "        return x\n"
        "    if n == 0:  # noqa: ZL1\n"
        "        return x\n"
        "    return x\n"
    )
    assert codes_at(source) == []


def test_wrong_and_unknown_codes():
    source = HEAD + (
        "    if n == 1:  # noqa: ZL102\n"
        "        return x\n"
        "    return x  # noqa: ZL103, ZL999\n"
    )
    found = lint(source)
    assert [(d.line, d.column + 1, d.code) for d in found] == [(6, 8, "ZL101"), (6, 17, "ZL901"), (8, 15, "ZL901")]
    assert found[1].message.startswith("unused `noqa`: ZL102 reported nothing on this line")
    assert found[2].message.startswith("unused `noqa`: ZL103 reported nothing on this line; ZL999 is not a zlint rule")
    assert (found[2].end_line, found[2].end_column) == (8, 34)


def test_left_alone():
    source = HEAD + (
        "    y = 1  # noqa\n"  # blanket: may be for another tool
        "    z = 2  # noqa: E501, F401\n"  # other tools' codes
        "    w = 3  # noqa: ZL801\n"  # only --verify reports ZL8xx
        "    s = '# noqa: ZL101'\n"  # not a comment
        "    return x  # noqa: ZL901\n"
    )
    assert codes_at(source) == []


def test_disabled_rules_are_not_reported():
    source = HEAD + "    return x  # noqa: ZL102, ZL103\n"
    assert codes_at(source, Settings(select=("ZL101", "ZL103", "ZL901"))) == [(6, 15, "ZL901")]
    diag = lint(source, Settings(select=("ZL101", "ZL103", "ZL901")))[0]
    assert "ZL102" not in diag.message and "ZL103" in diag.message


def test_can_itself_be_suppressed_and_respects_file_level_noqa():
    assert codes_at(HEAD + "    return x  # noqa: ZL103, ZL901\n") == []
    assert codes_at("# zlint: noqa: ZL901\n" + HEAD + "    return x  # noqa: ZL103\n") == []


def test_lines_are_counted_like_the_parser_counts_them():
    """A form feed is no line break for Python: the noqa must stay on its line (str.splitlines
    would shift it), for suppression and for ZL901 alike; a lone CR is one."""
    source = HEAD + "    \x0c\n    if n == 1:  # noqa: ZL101\n        return x\n    return x\n"
    assert codes_at(source) == []
    cr = (HEAD + "    if n == 1:  # noqa: ZL101\n        return x\n    return x  # noqa: ZL102\n").replace("\n", "\r")
    assert codes_at(cr) == [(8, 15, "ZL901")]


def test_rule_is_registered_opt_in():
    from zlint.core.registry import RULES_BY_CODE, default_codes

    rule = RULES_BY_CODE["ZL901"]
    assert rule.name == "unused-noqa" and rule.default_enabled is False
    assert "ZL901" not in default_codes()
    assert ALL.enabled_codes("t.py") >= {"ZL901"}
