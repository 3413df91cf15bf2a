"""The frame model: a graph break inside a loop makes dynamo skip the whole frame (it runs eagerly),
so the frame's other findings cost nothing until that break is fixed. Each case below was measured
on torch 2.13 (CPU, ``backend="eager"``, ``dynamic=True``, sizes 2, 3, 5): "skips" means 0 graphs
for the frame, the near misses compile graphs around a plain break."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import run_zlint
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source

DEFAULT = Settings()
ALL_SCOPES = Settings(scope="all")


def _lint(code: str, settings: Settings = DEFAULT) -> list[tuple[int, str, str]]:
    result = lint_source(textwrap.dedent(code), "m.py", settings)
    assert result.error is None, result.error
    return [(d.line, d.code, d.scope) for d in result.diagnostics]


BREAK_IN_LOOP = """\
import torch


@torch.compile(dynamic=True)
def f(x, mask: torch.Tensor):
    out = []
    for i in range(3):
        y = x * i
        if mask.any():
            y = y + 1
        out.append(y)
    if x.size(0) == 1:
        return out[0]
    for j in range(x.shape[0]):
        out.append(x[j])
    return out[-1]
"""


def test_a_break_in_a_loop_hides_the_rest_of_its_frame():
    assert _lint(BREAK_IN_LOOP) == [(9, "ZL303", "compiled")]
    (diagnostic,) = lint_source(BREAK_IN_LOOP, "m.py", DEFAULT).diagnostics
    assert diagnostic.message == (
        "`mask.any()` branches on a tensor value: graph break in a loop: dynamo runs all of `f` eagerly "
        "(hiding 2 more findings); use torch.where"
    )


def test_a_call_that_only_the_run_may_confirm_as_a_break_takes_no_part():
    # `check(t, ...)` as a statement may be a tensor-check wrapper (ZL308) only the run's index
    # can tell; linted alone it is dropped at placement, and never counted as hidden
    code = BREAK_IN_LOOP.replace("import torch\n", "import torch\nfrom .utils import check\n", 1).replace(
        "        out.append(y)\n", "        out.append(y)\n        check(y > 0, 'negative')\n"
    )
    (diagnostic,) = lint_source(code, "m.py", DEFAULT).diagnostics
    assert (diagnostic.line, diagnostic.code) == (10, "ZL303")
    assert "(hiding 2 more findings)" in diagnostic.message


def test_the_hidden_findings_show_with_scope_all_and_say_why():
    result = lint_source(BREAK_IN_LOOP, "m.py", ALL_SCOPES)
    assert [(d.line, d.code, d.scope, d.scope_reason) for d in result.diagnostics] == [
        (9, "ZL303", "compiled", "decorated with torch.compile"),
        (12, "ZL101", "never", "dynamo skips this frame: graph break in a loop at line 9"),
        (14, "ZL201", "never", "dynamo skips this frame: graph break in a loop at line 9"),
    ]


@pytest.mark.parametrize(
    ("name", "code", "expected"),
    [
        # the break runs once, before the loop starts: a plain break (5 graphs measured)
        (
            "iterable",
            """\
            import torch

            @torch.compile(dynamic=True)
            def f(x, t: torch.Tensor):
                y = x.sin()
                for v in t.tolist():
                    y = y + v
                if x.size(0) == 1:
                    y = y * 2
                return y
            """,
            [(6, "ZL302", "compiled"), (8, "ZL101", "compiled")],
        ),
        # a while loop's test: a plain break (2 graphs measured)
        (
            "while test",
            """\
            import torch

            @torch.compile(dynamic=True)
            def f(x, t: torch.Tensor):
                i = 0
                while t[i].item() > 0:
                    i += 1
                if x.size(0) == 1:
                    return x
                return x.cos()
            """,
            [(6, "ZL301", "compiled"), (8, "ZL101", "compiled")],
        ),
        # the break is outside the loop: a graph on each side of it
        (
            "after the loop",
            """\
            import torch

            @torch.compile(dynamic=True)
            def f(x, mask: torch.Tensor):
                for i in range(3):
                    x = x + i
                if mask.any():
                    x = x + 1
                if x.size(0) == 1:
                    return x
                return x.cos()
            """,
            [(7, "ZL303", "compiled"), (9, "ZL101", "compiled")],
        ),
        # a nested function is a frame of its own: its loop break skips it, not the outer frame
        (
            "nested def",
            """\
            import torch

            @torch.compile(dynamic=True)
            def f(x, mask: torch.Tensor):
                def inner(y):
                    for i in range(2):
                        if mask.any():
                            y = y + 1
                    return y
                if x.size(0) == 1:
                    return inner(x)
                return x.cos()
            """,
            [(7, "ZL303", "compiled"), (10, "ZL101", "compiled")],
        ),
    ],
)
def test_near_misses_keep_every_finding(name, code, expected):
    assert _lint(code) == expected


EARLIER_BREAK = """\
import torch


@torch.compile(dynamic=True)
def f(x, m: torch.Tensor):
    if x.size(0) == 1:
        x = x * 2
    y = x.sum().item()
    for i in range(2):
        if m.any():
            x = x + 1
    if x.size(0) == 1:
        x = x * 3
    return x
"""


def test_a_plain_break_before_the_loop_keeps_what_runs_before_it():
    # measured: 2 graphs (the part before `.item()` compiles; the frame resumed after it is skipped)
    assert _lint(EARLIER_BREAK, ALL_SCOPES) == [
        (6, "ZL101", "compiled"),
        (8, "ZL301", "compiled"),
        (10, "ZL303", "compiled"),
        (12, "ZL101", "never"),
    ]
    messages = {d.line: d.message for d in lint_source(EARLIER_BREAK, "m.py", DEFAULT).diagnostics}
    assert "dynamo runs the rest of `f` eagerly (hiding 1 more finding)" in messages[10]


HELPERS = """\
import torch


def plain(x, m: torch.Tensor):
    if m.any():
        x = x + 1
    return x


def looping(x, m: torch.Tensor):
    for i in range(2):
        if m.any():
            x = x + 1
    return x


@torch.compile(dynamic=True)
def calls_plain_in_a_loop(x, m: torch.Tensor):
    for i in range(2):
        x = plain(x, m)
    if x.size(0) == 1:
        return x
    return x.cos()


@torch.compile(dynamic=True)
def calls_looping_in_a_loop(x, m: torch.Tensor):
    for i in range(2):
        x = looping(x, m)
    if x.size(0) == 1:
        return x
    return x.cos()


@torch.compile(dynamic=True)
def calls_looping_once(x, m: torch.Tensor):
    x = looping(x, m)
    if x.size(0) == 1:
        return x
    return x.cos()
"""


def test_a_call_in_a_loop_skips_the_caller_only_when_the_callee_is_skipped():
    # measured graphs: calls_plain_in_a_loop 3 (dynamo resumes inside `plain`),
    # calls_looping_in_a_loop 0, calls_looping_once 2 (a break at the call, outside the loop)
    assert _lint(HELPERS, ALL_SCOPES) == [
        (5, "ZL303", "compiled"),
        (12, "ZL303", "compiled"),
        (21, "ZL101", "compiled"),
        (30, "ZL101", "never"),
        (38, "ZL101", "compiled"),
    ]


def test_the_cli_shows_the_reason_in_json(tmp_path):
    (tmp_path / "m.py").write_text(BREAK_IN_LOOP, encoding="utf-8")
    proc = run_zlint("--no-cache", "--scope", "all", "--format", "json", "m.py", cwd=tmp_path)
    found = json.loads(proc.stdout)
    assert [(d["location"]["row"], d["scope"]) for d in found] == [(9, "compiled"), (12, "never"), (14, "never")]
    assert proc.returncode == 1


DOMINATED = """\
import torch


@torch.compile(dynamic=True)
def f(x, w: torch.Tensor, h: torch.Tensor, flag: bool):
    out = []
    for i in range(3):
        if flag:
            a = w[i].item()
        else:
            a = h[i].item()
        b = h[i].item()
        if w.sum().item() > 0:
            c = x.sum().item()
        out.append(x * a + b)
    return out


@torch.compile(dynamic=True)
def g(x, w: torch.Tensor, h: torch.Tensor, flag: bool):
    out = []
    for i in range(3):
        if flag:
            a = w[i].item()
        b = flag and h[i].item()
        for j in range(2):
            c = w[j].item()
        d = h[0].item()
        out.append(x * b + d)
    return out
"""


def test_a_break_that_another_always_precedes_in_the_iteration_is_hidden_behind_it():
    # measured (sizes 2, 3, 5): 0 graphs with two `.item()`s in the loop, and still 0 with the
    # first one removed: the later break adds nothing until the first is fixed
    assert _reasons(DOMINATED) == [
        (9, "ZL301", "compiled", "decorated with torch.compile"),
        (11, "ZL301", "compiled", "decorated with torch.compile"),
        # both branches of the if/else break before it
        (12, "ZL301", "never", "dynamo skips this frame: graph break in a loop at line 9"),
        (13, "ZL301", "never", "dynamo skips this frame: graph break in a loop at line 9"),
        (14, "ZL301", "never", "dynamo skips this frame: graph break in a loop at line 9"),
        # near misses: a break in one branch only, in a later `and` operand, in an inner loop
        # (which may run zero times) precede nothing for sure
        (24, "ZL301", "compiled", "decorated with torch.compile"),
        (25, "ZL301", "compiled", "decorated with torch.compile"),
        (27, "ZL301", "compiled", "decorated with torch.compile"),
        (28, "ZL301", "compiled", "decorated with torch.compile"),
    ]
    messages = {d.line: d.message for d in lint_source(DOMINATED, "m.py", DEFAULT).diagnostics}
    assert sorted(messages) == [9, 11, 24, 25, 27, 28]
    assert "dynamo runs all of `f` eagerly (hiding 3 more findings)" in messages[9]


def _reasons(code: str) -> list[tuple[int, str, str, str]]:
    result = lint_source(code, "m.py", ALL_SCOPES)
    assert result.error is None, result.error
    return [(d.line, d.code, d.scope, d.scope_reason) for d in result.diagnostics]
