"""The shared size facts: which expressions are sizes, shapes, ranks, tensors."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from zlint.facts.imports import ImportMap
from zlint.facts.size_facts import Kind, SizeFactsProvider


class _InOrder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.BaseExpression):
            self.nodes.append(node)
        return True


def facts(code: str) -> dict[str, Kind]:
    """Source text of each expression -> its kind; for repeated text the last in source order
    wins (so ``use(n)`` at the end of a test function tells what ``n`` holds there)."""
    module = cst.parse_module(textwrap.dedent(code))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    found = wrapper.resolve(SizeFactsProvider)
    order = _InOrder()
    module.visit(order)
    out: dict[str, Kind] = {}
    for node in order.nodes:
        text = module.code_for_node(node)
        if node in found:
            out[text] = found[node].kind
        else:
            out.pop(text, None)
    return out


@pytest.mark.parametrize(
    "expr",
    ["x.size(0)", "x.size()[1]", "x.shape[0]", "x.shape[-1]", "x.numel()", "x.nelement()",
     "x.size(dim=0)", "torch.numel(x)", "x.shape[0] * 2", "x.size(1) - 1", "x.shape[0] // 4",
     "-x.shape[0]", "int(x.shape[0])", "max(x.shape[0], 1)"],
)
def test_size_expressions(expr):
    assert facts(f"import torch\ndef f(x):\n    y = {expr}\n")[expr] is Kind.SIZE


@pytest.mark.parametrize(
    "binding, name",
    [
        ("n = x.size(0)", "n"),
        ("b, s, _ = x.shape", "b"),
        ("b, s, _ = x.shape", "s"),
        ("b, s = x.shape[:2]", "s"),
        ("bsz, q_len, _ = hidden.size()", "q_len"),
        ("*rest, d = x.shape", "d"),
        ("n = x.size(0) if x is not None else 0", "n"),
        ("n = x.shape[0]\n    n += 1", "n"),
        ("m = x.shape[1]\n    n = m * 2", "n"),
    ],
)
def test_names_bound_from_sizes(binding, name):
    code = f"def f(x, hidden):\n    {binding}\n    use({name})\n"
    assert facts(code)[name] is Kind.SIZE


@pytest.mark.parametrize("expr", ["x.dim()", "x.ndim", "len(x.shape)", "len(x.size())", "x.ndimension()"])
def test_ranks_are_static(expr):
    assert facts(f"def f(x):\n    y = {expr}\n")[expr] is Kind.RANK


def test_tensors_from_annotations_and_torch_calls():
    found = facts(
        """
        import torch as T
        from torch import Tensor
        from typing import Optional
        def f(a: Tensor, b: T.Tensor, c: Optional[Tensor], d: "torch.Tensor", e: list[Tensor], g: int):
            h = T.zeros(3)
            i = a.view(-1)
            use(a, b, c, d, e, g, h, i)
        """
    )
    tensors = {name for name, kind in found.items() if kind is Kind.TENSOR}
    assert {"a", "b", "c", "d", "h", "i"} <= tensors
    assert "e" not in tensors and "g" not in tensors


def test_len_is_a_size_only_for_tensors():
    found = facts(
        """
        import torch
        def f(t: torch.Tensor, names, u):
            a = len(t)
            b = len(names)
            c = len(u)
            return u.shape
        """
    )
    assert found["len(t)"] is Kind.SIZE
    assert "len(names)" not in found  # unknown objects are not tensors
    assert found["len(u)"] is Kind.SIZE  # u's .shape is read in the function


def test_plain_ints_and_lists_are_not_sizes():
    found = facts(
        """
        def f(x, names, n: int):
            k = 4
            m = len(names)
            s = x.shape[0]
            s = 3
            use(k, m, n, s)
        """
    )
    for name in ("k", "m", "n"):
        assert name not in found or found[name] is not Kind.SIZE
    # the most recent binding wins: `s = 3` rebinds s to a plain int
    assert "s" not in found or found["s"] is not Kind.SIZE


def test_bindings_do_not_leak_between_functions():
    found = facts(
        """
        def f(x):
            n = x.size(0)
        def g(n):
            return n
        """
    )
    assert "n" not in found or found["n"] is not Kind.SIZE


def test_size_comparisons_are_predicates_and_flow_through_bools():
    found = facts(
        """
        def f(q, mask):
            is_causal = q.shape[2] > 1 and mask is None
            use(is_causal)
        """
    )
    assert found["q.shape[2] > 1"] is Kind.PREDICATE
    assert found["is_causal"] is Kind.PREDICATE


def test_container_attributes_found_in_every_block_but_not_in_nested_classes():
    import libcst as cst

    from zlint.facts.values import container_attributes

    module = cst.parse_module(
        "class K:\n"
        "    def __init__(self, flag):\n"
        "        self.a = {}\n"
        "        if flag:\n            self.b = []\n        else:\n            self.c: set = set()\n"
        "        for _ in range(2):\n            try:\n                self.d = dict()\n"
        "            except ValueError:\n                self.e = [i for i in range(3)]\n"
        "            finally:\n                self.f = 1\n"
        "        with open('x') as fh: self.g = {}; self.h = fh\n"
        "        def helper():\n            self.i = list()\n"
        "        class Inner:\n            def m(self):\n                self.j = {}\n"
        "        self.k = (lambda: {})()\n"
    )
    names = container_attributes(module.body[0], ImportMap().qualify)
    assert names == {"a", "b", "c", "d", "e", "g", "i"}
