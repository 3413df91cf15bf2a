"""Where a size comes from (zlint.facts.lattice.Fact.origin) and what a finding reads
(Diagnostic.reads): the names and dims a workload looks up to tell whether a size varies."""

from __future__ import annotations

import pytest

from conftest import lint


def reads(code: str) -> list[tuple[int, str, str]]:
    return [(d.line, d.code, d.reads) for d in lint(code)]


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("x.size(0) == 1", "x:0"),
        ("x.shape[1] > 512", "x:1"),
        ("x.shape[-1] > 512", "x:-1"),
        ("x.size()[2] == 0", "x:2"),
        ("len(x) == 0", "x:0"),
        ("x.numel() == 0", "x:*"),
        ("not x.numel()", "x:*"),
        ("self.cache.size(1) > 8", "self.cache:1"),
        # through a name, arithmetic, int(), min()
        ("h * w > 4096", "x:2 x:3"),
        ("int(n / 2) == 1", "x:0"),
        ("min(n, 4) == 1", "x:0"),
        ("n - 1 > 0", "x:0"),
    ],
)
def test_a_finding_reads_the_dims_its_size_comes_from(test, expected):
    code = f"""\
    import torch

    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            n = x.shape[0]
            b, c, h, w = x.shape
            if {test}:
                return x
            return x + 1
    """
    found = [r for r in reads(code) if r[0] == 7]
    assert found and found[0][2] == expected, found


def test_unpacking_after_a_star_counts_from_the_end():
    code = """\
    import torch

    def f(x: torch.Tensor):
        b, *rest, d = x.shape
        if d == 1:
            return x
        return x
    """
    assert reads(code) == [(5, "ZL101", "x:-1")]


def test_a_size_of_an_unnamed_tensor_reads_nothing_known():
    code = """\
    import torch

    def f(x: torch.Tensor):
        if torch.relu(x).size(0) == 1:
            return x
        return x
    """
    assert reads(code) == [(4, "ZL101", "")]


def test_a_loop_over_a_size_reads_it():
    code = """\
    import torch

    def f(boxes: torch.Tensor):
        out = boxes
        for i in range(boxes.shape[0]):
            out = out + i
        return out
    """
    assert reads(code) == [(5, "ZL201", "boxes:0")]


@pytest.mark.parametrize(
    ("rebinding", "test", "expected"),
    [
        # dims kept: elementwise with a number, dtype moves, in place
        ("x = x * 2", "x.size(0) > 512", "x:0"),
        ("x = x.float().contiguous()", "x.shape[1] > 512", "x:1"),
        ("x += 1", "x.size(0) > 512", "x:0"),
        # dims moved: followed through literal permutations
        ("x = x.transpose(0, 1)", "x.size(0) > 512", "x:1"),
        ("x = x.permute(0, 2, 3, 1)", "x.shape[1] > 512", "x:2"),
        ("x = x.permute(0, 2, 3, 1).permute(0, 3, 1, 2)", "x.shape[1] > 512", "x:1"),
        ("x = x.transpose(1, 2)", "x.shape[-1] > 512", ""),  # the rank is not known: no dim
        # dims lost: the parameter's only where the rebinding never ran (its line is named)
        ("x = x.view(-1)", "x.size(0) > 512", "x?6:0"),
        ("x = helper(x)", "x.size(0) > 512", "x?6:0"),
    ],
)
def test_a_rebound_parameter_s_dims_are_followed_or_made_conditional(rebinding, test, expected):
    code = f"""\
    import torch

    class M(torch.nn.Module):
        def forward(self, x: torch.Tensor):
            y = x
            {rebinding}
            if {test}:
                return x
            return x + 1
    """
    found = [r for r in reads(code) if r[0] == 7]
    assert found and found[0][2] == expected, found


def test_a_loop_that_rebinds_the_name_leaves_no_origin():
    code = """\
    import torch

    def f(x: torch.Tensor):
        for _ in range(3):
            if x.size(0) > 512:
                return x
            x = x.transpose(0, 1)
        return x
    """
    assert [r for r in reads(code) if r[0] == 5] == [(5, "ZL103", "")]
