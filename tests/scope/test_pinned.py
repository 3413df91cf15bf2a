"""Sizes a frame already pins: ``range(n)`` specializes ``n`` for the whole graph, so other
tests of ``n`` in that frame add no recompile of their own. Measured on torch 2.13 (CPU,
``backend=CompileCounter``, ``dynamic=True``, sizes 2, 3, 5, 8, 1): 5 graphs for ``PINNED``'s
``f`` and 5 for the same function without its three tests."""

from __future__ import annotations

import json
import textwrap

from conftest import run_zlint
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source

ALL = Settings(scope="all")

PINNED = """\
import torch


@torch.compile(dynamic=True)
def f(x, chunk: int = 4):
    T = x.shape[0]
    boundaries = list(range(0, T, chunk)) or [0]
    if len(boundaries) > 1 and (T - boundaries[-1]) < chunk:
        boundaries.pop()
    if T > 512:
        x = x * 2
    if T == 1:
        x = x + 3
    for i in range(T):
        x = x + i
    return x


@torch.compile(dynamic=True)
def near(x, y, flag: bool):
    T = x.shape[0]
    if flag:
        for i in range(T):
            x = x + i
    if T > 512:
        x = x * 2
    n = y.shape[0]
    for j in range(n):
        y = y + 1
    if n > T:
        y = y * 2
    n = n + 1
    return x, y
"""


def _rows(code: str, settings: Settings = ALL) -> list[tuple[int, str, str, str]]:
    result = lint_source(textwrap.dedent(code), "m.py", settings)
    assert result.error is None, result.error
    return [(d.line, d.code, d.scope, d.scope_reason) for d in result.diagnostics]


def test_tests_of_a_size_a_range_pins_for_the_graph_are_already_paid():
    paid = "already paid: `range(0, T, chunk)` at line 7 pins these sizes for the graph"
    compiled = "decorated with torch.compile"
    assert _rows(PINNED) == [
        (7, "ZL201", "compiled", compiled),
        (8, "ZL103", "never", paid),  # `boundaries`: bound from pinned sizes, changed only by pop()
        (10, "ZL103", "never", paid),
        (12, "ZL101", "never", paid),
        (14, "ZL201", "never", paid),  # a second range over the same size
        # near misses: a range under an `if` pins nothing when the branch is not taken; `n` is
        # bound twice
        (23, "ZL201", "compiled", compiled),
        (25, "ZL103", "compiled", compiled),
        (28, "ZL201", "compiled", compiled),
        (30, "ZL103", "compiled", compiled),
    ]


def test_the_paid_findings_are_hidden_by_default_and_the_cli_says_why(tmp_path):
    (tmp_path / "m.py").write_text(PINNED, encoding="utf-8")
    shown = run_zlint("--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    assert [d["location"]["row"] for d in json.loads(shown.stdout)] == [7, 23, 25, 28, 30]
    every = run_zlint("--no-cache", "--scope", "all", "--format", "json", "m.py", cwd=tmp_path)
    reasons = {d["location"]["row"]: d["scope_reason"] for d in json.loads(every.stdout)}
    assert reasons[10] == "already paid: `range(0, T, chunk)` at line 7 pins these sizes for the graph"


def test_a_local_derived_from_a_pinned_size_is_paid_for_too():
    code = """\
import torch


@torch.compile(dynamic=True)
def f(x):
    T = x.shape[0]
    for i in range(T):
        x = x + i
    half = T // 2
    if half > 3:
        x = x * 2
    return x
"""
    assert _rows(code) == [
        (7, "ZL201", "compiled", "decorated with torch.compile"),
        (10, "ZL103", "never", "already paid: `range(T)` at line 7 pins these sizes for the graph"),
    ]


def test_every_specialization_pins_its_sizes_whatever_the_spelling():
    """A size handed to `linspace`'s plain-int `steps` (ZL210) or used as a key (ZL205) is
    specialized like `range`'s: measured on torch 2.13 (`dynamic=True`, sizes 2, 3, 5, 8, 6, 7),
    6 graphs with the later `x.size(0) > 4` test and 6 without it, for each."""
    code = """\
import torch

TABLE = {3: 1.0}


@torch.compile(dynamic=True)
def f(x):
    n = x.shape[0]
    g = torch.linspace(0, 1, n)
    if x.size(0) > 4:
        g = g * 2
    return x[:, 0] + g


@torch.compile(dynamic=True)
def g(x):
    s = TABLE.get(x.size(0))
    if x.shape[0] > 4:
        s = 2.0
    return x * (s or 2.0)


@torch.compile(dynamic=True)
def rebound(x, y):
    s = TABLE.get(x.size(0))
    x = y
    if x.shape[0] > 4:
        x = x * 2
    return x * (s or 2.0)
"""
    compiled = "decorated with torch.compile"
    assert _rows(code, Settings(scope="all", extend_select=("ZL210",))) == [
        (9, "ZL210", "compiled", compiled),
        (10, "ZL103", "never", "already paid: `torch.linspace(0, 1, n)` at line 9 pins these sizes for the graph"),
        (17, "ZL205", "compiled", compiled),
        (18, "ZL103", "never", "already paid: `TABLE.get(x.size(0))` at line 17 pins these sizes for the graph"),
        # `x` is bound again before the test: another tensor's size
        (25, "ZL205", "compiled", compiled),
        (27, "ZL103", "compiled", compiled),
    ]
