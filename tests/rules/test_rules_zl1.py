"""ZL101-ZL103: exact findings, and the near misses they must stay quiet on."""

from __future__ import annotations

import pytest

from conftest import codes_at, lint
from zlint.core.settings import Settings


def test_comparisons_with_zero_and_one_in_every_control_flow_position():
    code = """\
import torch
def f(x: torch.Tensor, xs):
    if x.size(0) == 1:
        pass
    elif 0 < x.shape[1]:
        pass
    while x.numel() > 0:
        break
    y = 1 if x.shape[-1] != 1 else 2
    assert not x.size(0) < 1
    z = [t for t in xs if x.size(0) <= 1]
    if 0 < x.size(0) < 512:
        pass
    if x.shape[0] in (0, 1):
        pass
"""
    assert codes_at(code) == [
        (3, 8, "ZL101"), (5, 10, "ZL101"), (7, 11, "ZL101"), (9, 14, "ZL101"),
        (10, 16, "ZL101"), (11, 27, "ZL101"), (12, 8, "ZL101"), (14, 8, "ZL101"),
    ]


def test_an_assert_of_one_comparison_is_a_runtime_assert_and_quiet():
    # measured on torch 2.13 under mark_unbacked (sizes 1, 2, 5): `assert x.size(0) >= 1` and
    # `assert x.numel() > 0, msg` compile 1 graph; a chained comparison, `not` or `and` 2 graphs
    code = """\
import torch
def f(x: torch.Tensor, y: torch.Tensor, flag: bool):
    assert x.size(0) >= 1
    assert x.numel() > 0, "empty"
    assert x.shape[0] == y.shape[0] == 1
    assert not (flag and x.shape[0] > 1)
    assert x.size(0) == 1 and y.size(0) == 1
"""
    assert codes_at(code) == [(5, 12, "ZL101"), (6, 26, "ZL101"), (7, 12, "ZL101"), (7, 31, "ZL101")]


def test_a_size_bool_is_reported_where_python_takes_its_truth():
    code = """\
import torch.nn.functional as F
def attn(q, k, v, mask):
    is_causal = q.shape[2] > 1 and mask is None
    if is_causal:
        pass
    if is_causal:
        pass
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
"""
    # one finding for one comparison, however often its bool is used; `and` takes the truth of
    # `q.shape[2] > 1` where it is bound, so dynamo guards there
    assert codes_at(code) == [(3, 17, "ZL101")]
    alone = """\
def step(x, cache):
    n = x.shape[0]
    single = n == 1
    y = x + 1
    if not single:
        y = y * 2
    if single:
        y = y * 3
    seen = not (n == 1)
    if seen:
        y = y + 1
    return y
"""
    # a name holding the comparison alone: building it guards nothing, the first test guards
    # (the workloads' oracle on torch 2.13: the guard is on the `if`, not the assignment); `not`
    # takes its truth where it is bound
    assert codes_at(alone) == [(5, 12, "ZL101"), (9, 17, "ZL101")]
    assert lint(alone)[0].message.startswith("`single` (`n == 1`, line 3) branches on a size being 1")
    carried = """\
def blocks(hidden, layers):
    for index, layer in enumerate(layers):
        flag = hidden.size(1) > 2
        flag = flag and index > 0
        if flag:
            hidden = layer(hidden)
    return hidden
"""
    # `flag and index > 0` takes the truth of the first `flag` where it rebinds it (funnel's
    # pooling_flag): the guard is there, not at the `if` that reads the second binding
    assert codes_at(carried) == [(4, 16, "ZL103")]


def test_a_size_bool_passed_straight_into_an_op():
    code = """\
import torch.nn.functional as F
def attn(q, k, v):
    q_len = q.size(2)
    return F.scaled_dot_product_attention(q, k, v, is_causal=q_len > 1)
"""
    assert codes_at(code) == [(4, 62, "ZL101")]
    finding = lint(code)[0]
    assert finding.message == (
        "`q_len > 1` passes on a size being 0 or 1: blocks single-graph mode; "
        "pass a value that does not test the size (an explicit mask, a constant)"
    )
    assert finding.tier == "single-graph"


EMPTY_GUARD = "handle size 0 without a branch (ops work on empty tensors)"
FAST_PATH = "drop the size-1 fast path: the general path handles size 1"
BOTH = "let the general path handle sizes 0 and 1 (ops work on empty tensors)"
CHECK = "state the check with torch._check"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        # an empty-input guard: torch._check(n != 0) would make every empty input raise
        ("if x.size(0) == 0:\n        return x.new_zeros(4)",
         f"`x.size(0) == 0` branches on a size being 0: {EMPTY_GUARD}"),
        ("if x.size(0) > 0:\n        x = x * 2", f"`x.size(0) > 0` branches on a size being 0: {EMPTY_GUARD}"),
        ("if x.size(0) >= 1:\n        x = x * 2", f"`x.size(0) >= 1` branches on a size being 0: {EMPTY_GUARD}"),
        # a fast path for one element: redundant, the general path gives the same answer
        ("if x.shape[0] == 1:\n        return x[0]", f"`x.shape[0] == 1` branches on a size being 1: {FAST_PATH}"),
        ("if x.shape[0] != 1:\n        x = x.mean(0)", f"`x.shape[0] != 1` branches on a size being 1: {FAST_PATH}"),
        # 0 and 1 on one side
        ("if x.size(0) > 1:\n        x = x.mean(0)", f"`x.size(0) > 1` branches on a size being 0 or 1: {BOTH}"),
        ("if x.size(0) >= 2:\n        x = x.mean(0)", f"`x.size(0) >= 2` branches on a size being 0 or 1: {BOTH}"),
        ("if x.size(0) in (0, 1):\n        return x", f"`x.size(0) in (0, 1)` branches on a size being 0 or 1: {BOTH}"),
        # a validation: the check is right, torch._check states it without a branch
        ("if x.size(0) == 0:\n        raise ValueError('empty')", f"`x.size(0) == 0` checks a size being 0: {CHECK}"),
        ("assert not (x.size(0) == 1 and x.dim() > 2)", f"`x.size(0) == 1` checks a size being 1: {CHECK}"),
    ],
)
def test_zl101_advice_follows_what_the_test_singles_out(body, message):
    """`use torch._check` on `if n == 0: return empty` would make empty inputs raise: the advice
    is right for the pattern named."""
    code = f"import torch\n\n\ndef f(x: torch.Tensor):\n    {body}\n    return x\n"
    (finding,) = [d for d in lint(code) if d.code == "ZL101"]
    subject, advice = message.split(": ", 1)
    assert finding.message == f"{subject}: blocks single-graph mode; {advice}"


def test_zl102_advises_torch_check_only_for_a_check():
    code = """\
import torch
def f(x: torch.Tensor):
    if not x.numel():
        raise ValueError("empty")
    if x.numel():
        x = x * 2
    return x
"""
    assert [(d.line, d.message) for d in lint(code) if d.code == "ZL102"] == [
        (3, "`x.numel()` tests a size for truth: blocks single-graph mode; state the check with torch._check"),
        (5, "`x.numel()` tests a size for truth: blocks single-graph mode; handle 0 branch-free"),
    ]


def test_zl103_a_validation_against_a_threshold_is_a_single_graph_finding():
    """`if p.shape[0] < 4: raise` costs nothing by default (the guard holds while it does not
    raise) but is a branch on an unbacked size under mark_unbacked: a graph break (the oracle on
    torch 2.14.1). A plain `assert` on the same test is a runtime assert there; a relation of two
    sizes, and an equality that only one size passes, are left alone."""
    code = """\
import torch
def f(x: torch.Tensor, y: torch.Tensor):
    if x.size(1) > 512:
        raise ValueError("too long")
    if not x.shape[0] >= 4:
        raise ValueError("need 4 points")
    assert x.shape[0] >= 4, "need 4 points"
    if x.size(1) != y.size(1):
        raise ValueError("mismatch")
    if x.size(2) != 224:
        raise ValueError("the model takes 224 pixels: the dim cannot vary")
    return x
"""
    found = [(d.line, d.code, d.tier, d.message) for d in lint(code) if d.code == "ZL103"]
    assert found == [
        (3, "ZL103", "single-graph", "`x.size(1) > 512` checks a size threshold: blocks single-graph mode; "
         "state the check with torch._check"),
        (5, "ZL103", "single-graph", "`x.shape[0] >= 4` checks a size threshold: blocks single-graph mode; "
         "state the check with torch._check"),
    ]


def test_zl103_never_advises_torch_check_for_a_branch():
    """ZL103 advises torch._check only for checks that raise: on a branch it would turn the
    other side into an error."""
    code = """\
import torch
def f(x: torch.Tensor):
    if x.size(0) > 32:
        x = x[:32]
    if x.size(1) % 8:
        x = x * 2
    return x
"""
    assert [d.message for d in lint(code) if d.code == "ZL103"] == [
        "`x.size(0) > 32` is a size threshold: recompiles when it flips; "
        "make it branch-free (slices clamp, pad by 0) or use torch.cond",
        "`x.size(1) % 8` is a divisibility test: recompiles when it flips; "
        "make it branch-free (slices clamp, pad by 0) or use torch.cond",
    ]


def test_size_bool_never_used_for_control_flow_is_quiet():
    code = """\
def f(q):
    flag = q.shape[2] > 1
    return flag
"""
    assert codes_at(code) == []


def test_truthiness_of_sizes():
    code = """\
import torch
def f(x: torch.Tensor, t: torch.Tensor):
    if x.numel():
        pass
    n = x.size(0)
    if not n:
        pass
    if len(t):
        pass
    y = x if x.shape[0] else t
    while n and x.nelement():
        n -= 1
"""
    assert codes_at(code) == [
        (3, 8, "ZL102"), (6, 12, "ZL102"), (8, 8, "ZL102"), (10, 14, "ZL102"),
        (11, 11, "ZL102"), (11, 17, "ZL102"),
    ]


def test_thresholds_and_size_vs_size():
    code = """\
def f(x, y):
    seq_len = x.shape[1]
    if seq_len > 512:
        pass
    if x.size(0) == y.size(0):
        pass
    if x.shape != y.shape:
        pass
    w = 2 if seq_len >= 4096.0 else 1
"""
    assert codes_at(code) == [(3, 8, "ZL103"), (5, 8, "ZL103"), (7, 8, "ZL103"), (9, 14, "ZL103")]
    finding = lint(code)[0]
    assert "is a size threshold: recompiles when it flips" in finding.message
    assert finding.tier == "default"


def test_one_finding_per_comparison_with_the_most_specific_code():
    assert codes_at("def f(x):\n    if 1 < x.size(0) < 64:\n        pass\n") == [(2, 8, "ZL101")]


def test_aliased_torch_and_from_imports():
    code = """\
import torch as T
from torch import Tensor
def f(a: Tensor, b: T.Tensor):
    if len(a) == 1 or len(b) == 0:
        pass
    T._check(len(a) == 1)
"""
    assert codes_at(code) == [(4, 8, "ZL101"), (4, 23, "ZL101")]


NEAR_MISSES = {
    "rank via dim()": "if x.dim() == 1:\n        pass",
    "rank via ndim": "if x.ndim == 1:\n        pass",
    "rank via len(shape)": "if len(x.shape) == 1:\n        pass",
    "rank via len(size())": "if len(x.size()) == 0:\n        pass",
    "len of a plain list": "if len(names) == 1:\n        pass",
    "plain python int": "k = 4\n    if k == 1:\n        pass",
    "an int parameter": "if n > 512:\n        pass",
    "sizes only passed to view": "b, s, _ = x.shape\n    y = x.view(b, -1, 2)",
    "sizes only passed into ops": "y = x.new_zeros(x.size(0), 3)",
    "inside torch._check": "torch._check(x.size(0) == 1)",
    "inside torch._check_is_size": "torch._check_is_size(x.size(0))",
    "inside torch._check with message": "torch._check(x.shape[0] > 1, lambda: 'need two')",
    "torch.cond predicate": "y = torch.cond(x.shape[0] > 4, tb, fb, (x,))",
    "is None": "if x is None:\n        pass",
    "isinstance": "if isinstance(x, torch.Tensor):\n        pass",
    "size vs unknown attribute": "if x.shape[-1] != self.hidden_size:\n        pass",
    "validation that only raises": "if x.size(1) != y.size(1):\n        raise ValueError('mismatch')",
    "assert on two sizes": "assert x.size(0) == y.size(0)",
    "comparison not deciding anything": "ok = x.size(0) == 1",
    "size compared via is": "if x.size(0) is None:\n        pass",
    "loop over range of an int": "for i in range(4):\n        pass",
    "dtype check": "if x.dtype == torch.float16:\n        pass",
    "device check": "if x.device.type == 'cuda':\n        pass",
    "string length": "if len('abc') == 1:\n        pass",
    "truthiness of a tensor attribute that is not a size": "if self.training:\n        pass",
    "truthiness of a plain name": "if names:\n        pass",
    "size rebound to a plain int": "n = x.size(0)\n    n = 3\n    if n == 1:\n        pass",
}


@pytest.mark.parametrize("body", NEAR_MISSES.values(), ids=NEAR_MISSES.keys())
def test_near_misses_stay_quiet(body):
    code = f"import torch\ndef f(self, x, y, names, n: int, limit, tb, fb):\n    {body}\n"
    assert codes_at(code) == []


def test_module_level_code_is_checked_too():
    assert codes_at("import torch\nx = torch.zeros(n)\nif x.size(0) == 1:\n    pass\n") == [(3, 4, "ZL101")]


def test_enclosing_function_is_recorded():
    code = """\
class Pooler:
    def forward(self, x):
        def inner(y):
            return 1 if y.size(0) == 1 else 2
        if x.numel():
            pass
"""
    found = lint(code)
    assert [(d.code, d.function) for d in found] == [("ZL101", "Pooler.forward.inner"), ("ZL102", "Pooler.forward")]


# -- precision fixes found by reading findings on the real corpus (timm, torchvision) ----------

def test_divisibility_checks_are_zl103_not_zero_one():
    code = """\
def window_partition(x, window):
    B, H, W, C = x.shape
    if H % window != 0:
        pass
"""
    assert codes_at(code) == [(3, 8, "ZL103")]
    assert "is a divisibility test" in lint(code)[0].message


def test_size_bools_passed_to_assertion_helpers_are_quiet():
    # timm: `_assert(H % window_size[0] == 0, ...)`; tests: `self.assertTrue(x.size(0) == 1)`
    code = """\
from timm.layers import _assert
def f(self, x):
    B, H, W, C = x.shape
    _assert(H % 7 == 0, "divisible")
    _assert(x.size(0) == 1, "single")
    self.assertTrue(x.size(0) == 1)
    check_shape(x.shape[0] > 1)
    torch_compilable_check(x.shape[0] > 4, "a torch._check wrapper")
"""
    assert codes_at(code) == []
    # near miss: an op that takes the bool on (is_causal=...) is where the guard happens
    assert [c for *_, c in codes_at(code.replace("torch_compilable_check", "apply_causal"))] == ["ZL103"]


def test_len_of_a_name_narrowed_to_a_list_is_not_a_size():
    # torchvision.io.decode_jpeg: `input` is a tensor or a list of tensors
    code = """\
def decode(input, device):
    if isinstance(input, list):
        if len(input) == 0:
            raise ValueError("empty")
    return input.to(device) if input.dtype else input
"""
    assert codes_at(code) == []


def test_thresholds_made_of_constants_are_thresholds():
    # diffusers' Upsample2D and torchvision's batched_nms: measured under the workload oracle,
    # both guard on the size (`32*s30*s91 <= 2147483648`, `4*s97 <= 4000`) and recompile when it flips
    code = """\
import torch
def f(hidden_states: torch.Tensor, boxes: torch.Tensor, scale_factor: float):
    if hidden_states.numel() * scale_factor > pow(2, 31):
        hidden_states = hidden_states.contiguous()
    if boxes.numel() > (4000 if boxes.device.type == "cpu" else 100_000):
        return boxes
    if boxes.shape[0] > max(8, 16):
        return boxes
    if boxes.shape[0] > len(boxes.shape):
        return boxes
    if boxes.shape[0] > max(boxes.shape[1], 2):
        return boxes
    return hidden_states
"""
    found = [(d.line, d.column + 1, d.code) for d in lint(code, Settings(select=("ZL1",)))]
    assert found[:3] == [(3, 8, "ZL103"), (5, 8, "ZL103"), (7, 8, "ZL103")]
    assert all(line != 9 for line, _, _ in found)  # a rank is no threshold


def test_sizes_kept_in_lists_are_sizes():
    # torchvision's BoxCoder.decode: `box_sum` sums the boxes per image through a list and a loop;
    # under mark_unbacked the oracle saw `u0 > 0` break the graph there
    code = """\
import torch
def decode(rel_codes: torch.Tensor, boxes: list[torch.Tensor], x: torch.Tensor):
    boxes_per_image = [b.size(0) for b in boxes]
    box_sum = 0
    for val in boxes_per_image:
        box_sum += val
    if box_sum > 0:
        rel_codes = rel_codes.reshape(box_sum, -1)
    pad = [0, x.shape[-1], 0, 0]
    if any(pad):
        x = x + 1
    if sum(b.size(0) for b in boxes) == 0:
        return x
    sizes = [x.shape[0], x.shape[1]]
    if sizes[0] > 16:
        return x
    names = [1, 2, 3]
    if any(names) or len(sizes) > 1 or sum(names) > 4:
        return x
    return rel_codes
"""
    assert codes_at(code) == [(7, 8, "ZL101"), (10, 8, "ZL102"), (12, 8, "ZL101"), (15, 8, "ZL103")]


def test_a_chain_that_tests_0_dispatches_on_a_count_not_a_layout():
    # `n == 0 ... elif n == 3` over a varying count: each value its own graph (5 graphs for 4 sizes
    # by default); a dim tested only against 2 and 4 is a layout (box coordinates) and stays quiet
    code = """\
import torch
def pick(x: torch.Tensor, boxes: torch.Tensor):
    n = x.shape[0]
    if n == 0:
        return x
    elif n == 1:
        return x * 2
    elif n == 2:
        return x * 3
    elif n == 3:
        return x * 4
    c = boxes.shape[-1]
    if c == 2:
        return boxes
    elif c == 4:
        return boxes * 2
    return x
"""
    found = [(d.line, d.code, d.tier) for d in lint(code)]
    assert found == [
        (4, "ZL101", "single-graph"), (6, "ZL101", "single-graph"), (8, "ZL103", "default"), (10, "ZL103", "default"),
    ]
