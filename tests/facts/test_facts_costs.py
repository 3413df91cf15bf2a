"""The costs the new facts claim, checked against real torch (graphs and breaks over a sweep).

Each case is a pattern a fact now reports (or now keeps quiet) and the cost its message names:
`recompiles when it flips` adds graphs over the sizes 2, 3, 5, 1, 0, 8 beyond what a loop-free
function costs (4 there: static 2, dynamic from 3, and sizes 1 and 0 on their own); `graph break`
shows in dynamo's break counter; a quiet pattern adds nothing.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

SWEEP = (2, 3, 5, 1, 0, 8)
BASELINE = 4  # graphs of a loop-free function over SWEEP with plain torch.compile


class Count:
    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


def sweep(fn, make) -> tuple[int, int]:
    """(graphs, graph breaks) of ``fn`` compiled with plain settings over SWEEP."""
    import torch._dynamo as dynamo

    dynamo.reset()
    dynamo.utils.counters.clear()
    count = Count()
    compiled = torch.compile(fn, backend=count)
    for n in SWEEP:
        compiled(*make(n))
    breaks = sum(dynamo.utils.counters["graph_break"].values())
    dynamo.reset()
    return count.graphs, breaks


class Holder:
    block_size = 4


HOLDER = Holder()


def attribute_threshold(x):
    return x * 2 if x.shape[0] > HOLDER.block_size else x - 1


def derived_threshold(x):
    return x * 2 if x.shape[0] - 3 > 0 else x - 1


def generator_threshold(x):
    return x * 2 if any(c.size(0) < 4 for c in (x, x)) else x - 1


def list_as_long_as_a_size(x):
    return x + torch.tensor([1.0] * x.shape[0])


def loop_clamped_at_two(x):
    for i in range(min(x.shape[0], 2)):
        x = x + i
    return x


def mask_read_by_augmented_assignment(x):
    x = x.clone()
    x[x > 2] += 1
    return x


def raise_only_divisibility(x):
    if x.shape[0] % 8:
        raise ValueError("need a multiple of 8")
    return x * 2


def tensor_as_range_bound(x, c):
    for i in range(c.max()):
        x = x + i
    return x


def rows(n):
    return (torch.ones(n, 3),)


def vector(n):
    return (torch.arange(n).float(),)


@pytest.mark.parametrize("fn", [attribute_threshold, derived_threshold, generator_threshold])
def test_thresholds_recompile_when_they_flip(fn):
    graphs, breaks = sweep(fn, rows)
    assert graphs > BASELINE and breaks == 0


def test_a_list_as_long_as_a_size_recompiles_for_every_size():
    graphs, _ = sweep(list_as_long_as_a_size, vector)
    assert graphs >= BASELINE + 2


def test_a_loop_clamped_at_two_costs_nothing():
    graphs, breaks = sweep(loop_clamped_at_two, rows)
    assert graphs <= BASELINE and breaks == 0


def test_a_raise_only_divisibility_check_costs_nothing_by_default():
    graphs, breaks = sweep(raise_only_divisibility, lambda n: (torch.ones(8 * n, 3),))
    assert graphs <= BASELINE and breaks == 0


def test_reading_through_a_mask_in_an_augmented_assignment_breaks_the_graph():
    _, breaks = sweep(mask_read_by_augmented_assignment, vector)
    assert breaks > 0


def test_a_tensor_as_a_range_bound_breaks_the_graph():
    _, breaks = sweep(tensor_as_range_bound, lambda n: (torch.ones(3), torch.tensor([n, 1])))
    assert breaks > 0


def size_relation(x, y):
    return x * 2 if x.shape[0] > y.shape[0] else x - 1


def test_a_relation_of_two_varying_sizes_recompiles_when_it_flips():
    import torch._dynamo as dynamo

    def graphs(fn) -> int:
        dynamo.reset()
        count = Count()
        compiled = torch.compile(fn, backend=count)
        for n, m in [(2, 5), (3, 4), (5, 2), (6, 3), (4, 7), (9, 8)]:
            compiled(torch.ones(n), torch.ones(m))
        dynamo.reset()
        return count.graphs

    assert graphs(size_relation) > graphs(lambda x, y: x * 2)


def remainder_through_a_name(x):
    rest = x.shape[0] % 4
    return x * 2 if rest != 0 else x - 1


def remainder_truthiness(x):
    return x * 2 if x.shape[0] % 4 else x - 1


@pytest.mark.parametrize("fn", [remainder_through_a_name, remainder_truthiness])
def test_a_divisibility_test_recompiles_when_it_flips_by_default(fn):
    # the sweep 2, 3, 5, 1, 0, 8 flips `n % 4 != 0` at 8 (and 0): a graph beyond the baseline
    graphs, breaks = sweep(fn, lambda n: (torch.ones(n, 3),))
    assert graphs > BASELINE and breaks == 0
