"""Every cost a message claims is checked against real torch on a small example.

Messages use a fixed vocabulary of claims (:data:`CLAIMS`); each claim has a measurement here. A
case is a snippet: zlint lints it, the claims are read from the message of the case's rule, and
each claim is measured on the snippet's ``f`` (CPU, the ``eager`` backend, a few sizes). A
message that claims nothing from the vocabulary is not checked here; a claim that a measurement
does not show fails the test.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass

import pytest

pytest.importorskip("torch")
import torch._dynamo  # noqa: E402
from torch.fx.experimental import _config as fx_config  # noqa: E402

from conftest import ALL  # noqa: E402
from zlint.engine.lint import lint_source  # noqa: E402


@dataclass
class Measured:
    graphs: int  # graphs the backend compiled over the sweep
    breaks: int  # graph breaks recorded
    error: BaseException | None = None


def _inputs(n: int):
    return torch.arange(float(n * 4)).reshape(n, 4) + 1


def measure(fn: Callable, sizes, *, dynamic=None, oblivious=False, unbacked=False, mark=False) -> Measured:
    """Compile ``fn`` and call it at each size; count graphs and breaks (or keep the error)."""
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    count = [0]

    def backend(gm, example_inputs):
        count[0] += 1
        return gm.forward

    compiled = torch.compile(fn, backend=backend, dynamic=dynamic, fullgraph=unbacked)
    error = None
    try:
        with fx_config.patch(backed_size_oblivious=oblivious):
            for n in sizes:
                x = _inputs(n)
                if unbacked:
                    torch._dynamo.decorators.mark_unbacked(x, 0)
                if mark:
                    torch._dynamo.maybe_mark_dynamic(x, 0)
                compiled(x)
    except Exception as exc:  # what a single-graph mode does to the code: it is the measurement
        error = exc
    counters = torch._dynamo.utils.counters  # a break on a tensor's value is counted as a resume
    breaks = sum(counters["graph_break"].values()) + sum(counters["resumes"].values())
    return Measured(count[0], breaks, error)


def _baseline(x):
    return x * 2


SWEEP = (2, 3, 4, 5, 6, 7)


def recompiles_for_every_size(fn, dynamic=None) -> bool:
    return measure(fn, SWEEP, dynamic=dynamic).graphs >= len(SWEEP) > measure(_baseline, SWEEP).graphs


def recompiles_when_it_flips(fn) -> bool:
    found, base = measure(fn, SWEEP).graphs, measure(_baseline, SWEEP).graphs
    return base < found < len(SWEEP)


def graph_break(fn, dynamic=None) -> bool:
    if measure(fn, (3,), dynamic=dynamic).breaks > 0:
        return True
    if dynamic:
        return False
    torch._dynamo.reset()  # explain() also sees breaks the counters keep elsewhere
    return torch._dynamo.explain(fn)(_inputs(3)).graph_break_count > 0


def blocks_single_graph_mode(fn) -> bool:
    sizes = (2, 3, 5, 8)
    no_cost_by_default = measure(fn, sizes).graphs == measure(_baseline, sizes).graphs
    oblivious = measure(fn, (2, 3, 5, 1, 8), dynamic=True, oblivious=True)
    base = measure(_baseline, (2, 3, 5, 1, 8), dynamic=True, oblivious=True)
    unbacked = measure(fn, (2, 3), unbacked=True)
    blocked = oblivious.graphs > base.graphs or oblivious.breaks > 0 or unbacked.error is not None
    return no_cost_by_default and blocked


def errors_under_mark_unbacked(fn) -> bool:
    return measure(fn, (2, 3), unbacked=True).error is not None


def wrong_result_at_size_0(fn) -> bool:
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager", dynamic=True)
    with fx_config.patch(backed_size_oblivious=True):
        for n in (2, 3):
            compiled(_inputs(n))
        got, want = compiled(_inputs(0)), fn(_inputs(0))
    return got.shape != want.shape or not torch.equal(got, want)


def runs_eagerly_once_the_size_is_dynamic(fn) -> bool:
    """Fewer graphs than a plain function (its static and its dynamic graph): after the first,
    static graph, dynamo could not compile the function and left it to run eagerly."""
    return measure(fn, SWEEP).graphs < measure(_baseline, SWEEP).graphs


def recompiles_at_the_first_new_size(fn) -> bool:
    return measure(fn, (2, 3, 5)).graphs == 2 and measure(fn, (2, 3, 5), mark=True).graphs == 1


CLAIMS: dict[str, Callable] = {
    "recompiles for every size": recompiles_for_every_size,
    "recompiles when it flips": recompiles_when_it_flips,
    "graph break": graph_break,
    "blocks single-graph mode": blocks_single_graph_mode,
    "errors under mark_unbacked": errors_under_mark_unbacked,
    "wrong result at size 0": wrong_result_at_size_0,
    "recompiles at the first new size": recompiles_at_the_first_new_size,
    "runs eagerly once the size is dynamic": runs_eagerly_once_the_size_is_dynamic,
}
RAISES = re.compile(r"\braises (\w+)")


def claims_in(message: str) -> list[str]:
    return [claim for claim in CLAIMS if claim in message] + [f"raises {e}" for e in RAISES.findall(message)]


@dataclass
class Case:
    code: str
    source: str
    #: for `raises X` claims: the snippet's own statements raise when run
    runs: bool = False
    #: the snippet's own ``dynamic=``, used when measuring ``f``
    dynamic: bool | None = None


OBLIVIOUS = "from torch.fx.experimental import _config\n_config.backed_size_oblivious = True\n"


def fn(body: str, prefix: str = "") -> str:
    """A module defining ``f(x: torch.Tensor)`` with ``body`` (every branch computes something:
    dynamo compiles no graph for a function that returns its input unchanged)."""
    return "import torch\n" + prefix + "\n\ndef f(x: torch.Tensor):\n" + textwrap.indent(textwrap.dedent(body), "    ")


CASES = [
    Case("ZL101", fn("if x.size(0) == 1:\n    return x * 3\nreturn x + 1\n")),
    Case("ZL102", fn("if x.numel():\n    return x.sum(0)\nreturn x[0]\n")),
    Case("ZL103", fn("if x.size(0) > 4:\n    return x * 3\nreturn x + 1\n")),
    Case("ZL103", fn("if x.size(0) > 100:\n    raise ValueError('too long')\nreturn x + 1\n")),
    Case("ZL104", fn("if x.size(0) == 0:\n    return x.new_full((1,), -1.0)\nreturn x.sum(0)[:1]\n", OBLIVIOUS)),
    Case("ZL201", fn("y = x\nfor i in range(x.shape[0]):\n    y = y + i\nreturn y\n")),
    Case("ZL202", fn("total = 0\nfor row in x:\n    total = total + row\nreturn total\n")),
    Case("ZL204", fn("parts = x.unbind(0)\nreturn parts[0] + 1\n")),
    Case("ZL205", fn("table = {}\ntable[x.size(0)] = x\nreturn table[x.size(0)] * 2\n")),
    Case("ZL206", fn("key = f\"{x.size(0)}\"\nreturn x * len(key)\n")),
    # a size is a constant in the first, static graph: str() of it breaks once it is dynamic
    Case("ZL206", fn("key = str(x.size(0))\nreturn x * len(key)\n"), dynamic=True),
    Case("ZL206", fn("key = \"%d rows\" % x.size(0)\nreturn x * len(key)\n")),
    Case("ZL210", fn("return x[:, 0] + torch.linspace(0, 1, x.size(0))\n")),
    Case("ZL210", fn("return torch.nn.functional.avg_pool1d(x.t()[None], x.size(0))[0] * 2\n")),
    Case("ZL301", fn("return x * x.sum().item()\n")),
    Case("ZL302", fn("return x * len(x.sum(1).tolist())\n")),
    Case("ZL303", fn("if x.sum() > 0:\n    return x * 2\nreturn x + 1\n")),
    Case("ZL304", fn("return torch.nonzero(x)\n")),
    Case("ZL305", fn("return x[x > 2]\n")),
    Case("ZL306", fn("return torch.unique(x)\n")),
    Case("ZL307", fn("return torch.repeat_interleave(x, x[:, 0].long(), dim=0)\n")),
    Case("ZL401", "import torch\n\n\ndef f(x):\n    return x * 2\n\n\ncompiled = torch.compile(f)\n"
         "for n in (2, 3):\n    batch = torch.ones(n)\n    compiled(batch)\n"),
    Case("ZL402", "import torch\n\n\n@torch.compile(backend='eager')\ndef f(x):\n"
         "    torch._dynamo.mark_dynamic(x, 0)\n    return x * 2\n\n\nf(torch.ones(3))\n", runs=True),
    Case("ZL403", "import torch\n\n\n@torch.compile(backend='eager')\ndef f(hands):\n    if hands.size(0) == 3:\n"
         "        return hands.sum(0)\n    return hands.mean(0)\n\n\ndef run(batches):\n    for hands in batches:\n"
         "        torch._dynamo.mark_dynamic(hands, 0)\n        f(hands)\n\n\nrun([torch.ones(3, 4)])\n", runs=True),
    Case("ZL404", "import torch\n\n\ndef f(x):\n    return x * 2\n\n\ncompiled = torch.compile(f, dynamic=False)\n"
         "for n in range(2, 6):\n    batch = torch.ones(n)\n    compiled(batch)\n", dynamic=False),
    Case("ZL410", "import torch\n\n\ndef f(x):\n    return x\n\n\n"
         "torch.compile(f, mode='max-autotune', options={'max_autotune': True})\n", runs=True),
    Case("ZL411", "import torch\n\n\ndef f(x):\n    return x\n\n\ntorch.compile(f, mode='fastest')\n", runs=True),
    Case("ZL412", "import torch\n\n\ndef f(x):\n    return x\n\n\ntorch.compile(f, backend='indoctor')\n", runs=True),
    Case("ZL413", "import torch\n\n\ndef f(x):\n    return x\n\n\ntorch.compile(f, options={'target': 'cuda'})\n",
         runs=True),
    Case("ZL414", "import torch\n\n\ndef f(x):\n    return x\n\n\ntorch.compile(f, optimize_cache=True)\n", runs=True),
    Case("ZL415", "import torch\n\ntorch.clear_compiled_cache()\n", runs=True),
    Case("ZL419", "import torch\n\n\ndef f(x):\n    return x\n\n\n"
         "torch.compile(f, options={'max_autotune': 'yes'})(torch.ones(2))\n", runs=True),
]


def _messages(case: Case) -> list[str]:
    result = lint_source(textwrap.dedent(case.source), "t.py", ALL)
    assert result.error is None
    found = [d.message for d in result.diagnostics if d.code == case.code]
    assert found, f"{case.code} does not fire on its example: {[d.code for d in result.diagnostics]}"
    return found


def _run(source: str) -> BaseException | None:
    torch._dynamo.reset()
    # an example may switch a global mode on (`_config.backed_size_oblivious = True`): the patch
    # puts it back afterwards, so later tests in this process compile with the defaults
    with fx_config.patch(backed_size_oblivious=fx_config.backed_size_oblivious):
        try:
            exec(compile(source, "claim_example.py", "exec"), {"__name__": "claim_example"})
        except Exception as exc:
            return exc
    return None


def _function(source: str) -> Callable:
    namespace: dict = {"__name__": "claim_example"}
    body = source.split("\ncompiled = ")[0]  # the definitions, not the snippet's own driver loop
    with fx_config.patch(backed_size_oblivious=fx_config.backed_size_oblivious):
        exec(compile(body, "claim_example.py", "exec"), namespace)
    return namespace["f"]


def test_examples_leave_the_global_modes_as_they_found_them():
    _run(OBLIVIOUS + "x = 1\n")
    _function(OBLIVIOUS + "def f(x):\n    return x\n")
    assert fx_config.backed_size_oblivious is False


#: a message longer than this is in the old explanatory style, whose conditional asides ("turn
#: this into a guard or graph break" under mark_unbacked) are not claims; reported as skipped
ONE_LINE = 140
#: code and data a message quotes (`x.size(0) == 1`, an options dict) do not count
PRINTED_DATA = re.compile(r"`[^`]*`|\{[^}]*\}")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.code)
def test_every_claim_in_the_message_holds(case: Case):
    for message in _messages(case):
        if len(PRINTED_DATA.sub("", message)) > ONE_LINE:
            pytest.skip(f"{case.code}: message not in the one-line claim style yet ({len(message)} chars)")
        for claim in claims_in(message):
            if claim.startswith("raises "):
                assert case.runs, f"{case.code} claims {claim!r}; its example must run"
                error = _run(case.source)
                names = {cls.__name__ for cls in type(error).__mro__} if error else set()
                assert claim.split()[1] in names, f"{case.code}: {message!r}: got {error!r}"
            else:
                check = CLAIMS[claim]
                kwargs = {"dynamic": case.dynamic} if case.dynamic is not None else {}
                assert check(_function(case.source), **kwargs), f"{case.code}: not measured: {claim!r} in {message!r}"


def test_the_measurements_can_say_no():
    """Each measurement rejects code that does not have the cost (the checks can fail)."""
    harmless = _baseline
    for claim, check in CLAIMS.items():
        if claim == "recompiles at the first new size":
            continue  # every function compiled without marks has this cost; tested below
        assert not check(harmless), claim

    def threshold(x):
        return x * 3 if x.size(0) > 4 else x + 1

    assert recompiles_when_it_flips(threshold) and not recompiles_for_every_size(threshold)

    def loop(x):
        for i in range(x.shape[0]):
            x = x + i
        return x

    assert recompiles_for_every_size(loop) and not blocks_single_graph_mode(loop)

    def zero_or_one(x):
        return x * 3 if x.size(0) == 1 else x + 1

    assert blocks_single_graph_mode(zero_or_one) and not graph_break(zero_or_one)
    assert recompiles_at_the_first_new_size(harmless)
    assert not recompiles_at_the_first_new_size(loop)


def test_zl4_messages_are_one_short_line():
    lengths = []
    for case in CASES:
        if case.code.startswith("ZL4"):
            for message in _messages(case):
                assert "\n" not in message
                lengths.append(len(message))
    lengths.sort()
    assert lengths[len(lengths) // 2] <= 100, lengths
