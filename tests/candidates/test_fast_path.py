"""The fast path (zlint/engine/prepass.py: skip the rules that cannot report in a file) finds exactly
what the full path (every enabled rule) finds.

Each case is linted both ways with every rule, and with the size rules alone (where the pre-pass
really skips rules); the findings must be equal field by field (positions, messages, enclosing
function, compiled flag, fixes). The rule tests and doc examples also run on both paths (conftest).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from zlint import rules as rule_modules
from zlint.core.settings import Settings
from zlint.engine import prepass
from zlint.engine.lint import lint_source

ROOT = Path(__file__).resolve().parents[2]
ALL = Settings(select=("ALL",))
SIZE_RULES = Settings(select=("ZL1",))

MODEL = '''\
"""A model file: module docstring that mentions shape and size."""
import math
import torch
from torch import nn


class Config:
    """Has a docstring with `shape` in it."""
    hidden = 4
    def describe(self):
        return "no sizes here"


class Attention(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.cache = {}
        self.proj = nn.Linear(dim, dim)

    def helper(self):
        import torch.nn.functional as F
        return 1

    @torch.no_grad()
    @(
        staticmethod
    )
    def forward(x: torch.Tensor, mask=None):
        bsz, q_len, _ = x.size()
        if q_len == 1:
            return x
        def inner(y):
            if y.shape[-1] > 64:
                return y
            return y * 2
        for n in range(x.shape[0]):
            if n:
                pass
        return inner(x)

    async def stream(self, x):
        if x.numel():
            yield x

    def lookup(self, x):
        return self.cache[x.shape[0]]

    class Inner:
        def deep(self, t: torch.Tensor):
            assert t.size(0) != 1 or t.dim() > 1
            return [v for v in t.tolist() if len(t) > 2]


def counted(x: torch.Tensor):
    return F.relu(x) if torch.numel(x) == 1 else None


def plain():
    return 3
'''

CASES = {
    "model": MODEL,
    "crlf": MODEL.replace("\n", "\r\n"),
    "tabs": (
        "import torch\n"
        "class M:\n"
        "\tdef quiet(self):\n\t\treturn 1\n"
        "\tdef loud(self, x: torch.Tensor):\n\t\tif x.shape[0] == 1:\n\t\t\treturn x\n\t\treturn -x\n"
    ),
    "non_ascii_columns": (
        "import torch\n"
        "def größe(x: torch.Tensor):\n"
        "    ü = 'äöü'; n = x.size(0)\n"
        "    if ü and n == 1 and '漢字' != x.shape[1]:\n"
        "        return x\n"
        "def ruhe():\n    return 'äöü'\n"
    ),
    "module_level_size": (
        "import torch\n"
        "x = torch.zeros(3)\n"
        "N = x.shape[0]\n"
        "IS_ONE = x.size(0) == 1\n"
        "def f(y):\n    if N == 1:\n        return y\n    return g(IS_ONE)\n"
        "def g(flag):\n    if flag:\n        return 1\n"
    ),
    "module_level_if_block": (
        "import torch\n"
        "if torch.cuda.is_available():\n"
        "    def f(x):\n        if x.shape[0] == 1:\n            return x\n"
        "else:\n    def f(x):\n        return x\n"
        "def other(x):\n    return x.numel() > 3 and x\n"
    ),
    "all_methods_dropped": (
        "import torch\n"
        "class Quiet:\n    def a(self):\n        return 1\n    def b(self):\n        return 2\n"
        "class Loud:\n    def a(self, x):\n        while x.size(0) > 1:\n            x = x[1:]\n        return x\n"
    ),
    "container_from_dropped_init": (
        "import torch\n"
        "class Cache:\n"
        "    def __init__(self):\n        self.table = {}\n        self.names: list = []\n"
        "    def get(self, x: torch.Tensor):\n        return self.table[x.shape[0]], len(self.names) > 1\n"
    ),
    "import_alias_of_a_trigger_word": (
        "def setup():\n    from torch import numel as count_of\n    return 1\n"
        "def use(x):\n    if count_of(x) == 0:\n        return x\n"
    ),
    "nested_class_in_dropped_method": (
        "import torch\n"
        "class Outer:\n"
        "    def build(self):\n"
        "        class Local:\n"
        "            def __init__(self):\n                self.items = []\n"
        "            import math as M\n"
        "        return Local\n"
        "    def use(self, x: torch.Tensor):\n        return self.items[x.size(0)], M.floor(x.numel()) > 2\n"
    ),
    "import_in_dropped_def": (
        "def setup():\n    import torch as T\n    return 1\n"
        "def use(x):\n    if T.numel(x) == 0:\n        return x\n    return x.size(1) > 1 and x\n"
    ),
    "no_trailing_newline": "import torch\ndef f(x):\n    return 1\ndef g(x):\n    if x.shape[0] == 1:\n        pass",
    "semicolons_and_comments": (
        "import torch; import math\n"
        "# a comment with x.shape[0] == 1\n"
        "def quiet():\n    return 'x.size(0) == 1'  # strings do not count\n"
        "@property\n# between decorator and def\n"
        "def loud(x):\n    return [i for i in x if x.size(0) == 1]\n"
    ),
    "compile_word_means_whole_file": (
        "import torch\n"
        "def step(x):\n    if x.shape[0] == 1:\n        return x\n    return x\n"
        "def other(x):\n    return x\n"
        "compiled = torch.compile(step)\n"
    ),
    "fact_reaches_through_module_names": (
        "import torch\n"
        "from torch.nn import functional as F\n"
        "N = torch.zeros(3).shape[0]\n"
        "M = N\n"
        "class Head:\n"
        "    width: int = 4\n"
        "    def pick(self, y):\n        if M == 1:\n            return y\n        return y\n"
        "    def pad(self, y):\n        y = F.pad(y, (0, 1))\n"
        "        if y.numel() == 1:\n            return y\n        return y\n"
        "    def describe(self):\n        return 'head'\n"
        "    def more(self):\n        return [1, 2]\n"
        "    def other(self):\n        return {'a': 1}\n"
        "    def last(self):\n        return None\n"
    ),
    "form_feed_falls_back": "import torch\n\x0c\ndef f(x):\n    if x.size(0) == 1:\n        return x\n",
    "lone_cr_falls_back": "import torch\rdef f(x):\r    if x.size(0) == 1:\r        return x\r",
    "noqa": (
        "import torch\n"
        "def f(x):\n    if x.shape[0] == 1:  # noqa: ZL101\n        return x\n"
        "def g(x):\n    return x\n"
        "def h(x):\n    assert x.size(0) > 1  # noqa\n"
    ),
}


def _as_tuples(result):
    assert result.error is None, result.error
    return [dataclasses.astuple(d) for d in result.diagnostics]


def _both_ways(source: str, settings: Settings, path: str = "m.py"):
    fast = lint_source(source, path, settings, full_path=False)
    full = lint_source(source, path, settings, full_path=True)
    return fast, full


@pytest.mark.parametrize("settings", [ALL, SIZE_RULES], ids=["all-rules", "size-rules"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_path_equals_full_path(name, settings):
    fast, full = _both_ways(CASES[name], settings)
    assert _as_tuples(fast) == _as_tuples(full)


def _relevant(text: str, settings: Settings) -> list[str]:
    rules = rule_modules.visitors(settings.enabled_codes("m.py"))
    return [rule.code for rule in prepass.relevant_rules(text, ast.parse(text), rules, settings)]


def test_only_rules_whose_trigger_words_occur_run():
    assert _relevant(CASES["import_alias_of_a_trigger_word"], SIZE_RULES) == ["ZL101", "ZL102", "ZL103", "ZL104"]
    squeeze = _relevant("def f(x):\n    return x.squeeze()\n", ALL)
    assert "ZL208" in squeeze and not {"ZL101", "ZL301", "ZL415"} & set(squeeze)
    # words count anywhere in the text (a comment too): the pre-pass may only be too generous
    assert _relevant("x = 1  # size\n", SIZE_RULES) == ["ZL101", "ZL102", "ZL103", "ZL104"]
    assert _relevant("x = 1  # sized\n", SIZE_RULES) == []


def test_may_report_skips_rules_whose_words_occur():
    # `optimize` occurs, but only in prose: no torch._dynamo.optimize call can name a backend
    text = '"""We optimize the model."""\nimport torch\n'
    assert "ZL412" not in _relevant(text, ALL)
    assert "ZL412" in _relevant(text + 'f = torch._dynamo.optimize("eager")(len)\n', ALL)


@pytest.mark.parametrize("full_path", [False, True])
def test_unused_noqa_runs_without_any_visitor(full_path):
    # ZL901 is checked after the traversal: selected alone it still reports
    result = lint_source("x = 1  # noqa: ZL999\n", "m.py", Settings(select=("ZL901",)), full_path=full_path)
    assert [(d.line, d.column, d.code) for d in result.diagnostics] == [(1, 7, "ZL901")]


def test_findings_in_the_model_case_are_real():
    # guard against both paths agreeing on nothing
    fast = lint_source(MODEL, "m.py", SIZE_RULES, full_path=False)
    found = [(d.line, d.column, d.code, d.function) for d in fast.diagnostics]
    assert found == [
        (30, 11, "ZL101", "Attention.forward"),
        (33, 15, "ZL103", "Attention.forward.inner"),
        (42, 11, "ZL102", "Attention.stream"),
        (50, 19, "ZL101", "Attention.Inner.deep"),
        (51, 45, "ZL103", "Attention.Inner.deep"),
        (55, 24, "ZL101", "counted"),
    ]


def test_crlf_positions_match_lf_positions():
    lf = lint_source(MODEL, "m.py", SIZE_RULES).diagnostics
    crlf = lint_source(CASES["crlf"], "m.py", SIZE_RULES).diagnostics
    assert [(d.line, d.column, d.end_line, d.end_column) for d in lf] == [
        (d.line, d.column, d.end_line, d.end_column) for d in crlf
    ]


def test_files_without_trigger_words_are_not_parsed(monkeypatch):
    import libcst

    calls = []
    real = libcst.parse_module
    monkeypatch.setattr(libcst, "parse_module", lambda *a, **k: calls.append(1) or real(*a, **k))
    result = lint_source("import os\ndef f(a):\n    return a + 1\n", "m.py", SIZE_RULES, full_path=False)
    assert result.diagnostics == [] and result.error is None and calls == []
    lint_source("import os\ndef f(a):\n    return a + 1\n", "m.py", SIZE_RULES, full_path=True)
    assert calls == [1]


def test_syntax_errors_are_reported_the_same_way():
    source = "def f(x):\n    if x.shape[0] == 1\n        pass\n"
    fast, full = _both_ways(source, ALL)
    assert fast.error == full.error and fast.error is not None


@pytest.mark.parametrize(
    "path",
    ["examples/hand_keypoints.py", "examples/likes_pooler.py", "examples/serving_loop.py", "zlint/engine/prepass.py"],
)
def test_real_files_of_this_repository(path):
    file = ROOT / path
    if not file.exists():
        pytest.skip(f"{path} not present")
    source = file.read_bytes()
    for settings in (ALL, SIZE_RULES):
        fast, full = _both_ways(source, settings, path)
        assert _as_tuples(fast) == _as_tuples(full)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("y = x.shape[0]  # size", {"shape", "size"}),
        ("reshapes = shapes + shape_ + _shape", set()),  # longer words only
        ("s = 'numel' + f'{n.item()}'", {"numel", "item"}),  # strings count too
        ("größe = 1; shape·x", {"shape"}),  # non-ASCII word characters bound words as in `re`
        ("size1 = 2; x.size()", {"size"}),
    ],
)
def test_words_in_matches_whole_words_anywhere(text, found):
    words = frozenset({"shape", "size", "numel", "item"})
    assert prepass.words_in(text, words) == found
    # the word-run split gives what the alternation with word boundaries gives
    assert set(prepass._words_pattern(words).findall(text)) == found


def test_words_in_with_a_word_that_is_not_a_word_run():
    words = frozenset({"optimize(", "size"})
    assert prepass.words_in("torch.optimize(x); size", words) == {"optimize(", "size"}
    assert prepass.words_in("optimize (x)", words) == set()
