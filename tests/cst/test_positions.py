"""Per-statement positions (zlint/cst/positions.py) equal LibCST's whole-module PositionProvider."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from zlint.cst.batched import DELEGATE, IS_WALKED, field_children, field_order
from zlint.cst.positions import StatementPositions

ROOT = Path(__file__).resolve().parents[2]

AWKWARD = '''\
#!/usr/bin/env python
"""Module docstring."""
import torch; import os as o
x = 1; y = (
    2)


@decorator(
    arg=1)

# a comment between decorator and def
def f(a,
      b):  # trailing
    if a:
        return b
        # indented comment at the end of a block

    # dedented comment
    return a
class K:
    @property
    def p(self): return self.x
    # footer comment
# module footer comment
if True: z = [
  1,
]
s = """multi
line""" + \\
    "continued"
'''


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    out = []

    def walk(node):
        out.append(node)
        order = field_order(node)
        children = node.children if order is DELEGATE else [
            c for a in order for c in field_children(node, a, IS_WALKED)
        ]
        for child in children:
            walk(child)

    for statement in module.body:
        walk(statement)
    return out


SOURCES = {
    "awkward": AWKWARD,
    "awkward-crlf": AWKWARD.replace("\n", "\r\n"),
    "awkward-cr": AWKWARD.replace("\n", "\r"),
    "form-feed": "x = 1\n\x0c\ndef f(a, b):\n    return x + a\x0c  # ff\n\ny = f(1, 2) + [3, 4][0]\n",
    "no-final-newline": "import torch\ndef f(x):\n    if x.size(0) == 1:\n        return x.size(0) + 1\n    return x",
}
_SAMPLES = (
    "zlint/engine/lint.py", "zlint/facts/size_facts.py", "examples/serving_loop.py", "tests/cst/test_batched.py"
)
for _path in _SAMPLES:
    SOURCES[_path] = (ROOT / _path).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_statement_positions_equal_libcsts_for_every_node(name):
    source = SOURCES[name]
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(MetadataWrapper(module, unsafe_skip_copy=True), source)
    nodes = _nodes(module)
    assert len(nodes) > 20
    for node in nodes:
        assert positions[node] == expected[node], (type(node).__name__, module.code_for_node(node)[:40])
    # the shortcut held, except where LibCST and ast count lines differently (form feed, lone CR)
    assert (positions._whole is None) == (name not in ("form-feed", "awkward-cr"))


def test_misaligned_source_falls_back_to_the_whole_module():
    source = "x = 1\ndef f():\n    return 2\n"
    module = cst.parse_module(source)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    # a source that does not match the parsed module: the statement check must notice
    positions = StatementPositions(wrapper, "x = 1\ndef g():\n    return 2\n")
    target = module.body[1]
    assert positions[target] == wrapper.resolve(PositionProvider)[target]
    assert positions._whole is not None


@pytest.mark.parametrize("name", ["awkward", "awkward-crlf", "zlint/engine/lint.py", "examples/serving_loop.py"])
def test_lookup_with_the_enclosing_defs_as_hint_equals_libcst(name):
    source = SOURCES[name]
    module = cst.parse_module(source)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = StatementPositions(MetadataWrapper(module, unsafe_skip_copy=True), source)
    stack, checked = [], 0

    def walk(node):
        nonlocal checked
        # the hint is what the rules' traversal knows: the defs around the node
        assert positions.lookup(node, list(stack)) == expected[node]
        checked += 1
        entered = isinstance(node, cst.FunctionDef)
        if entered:
            stack.append(node)
        order = field_order(node)
        if order is DELEGATE:
            children = node.children
        else:
            children = [c for a in order for c in field_children(node, a, IS_WALKED)]
        for child in children:
            walk(child)
        if entered:
            stack.pop()

    for statement in module.body:
        walk(statement)
    assert checked > 20 and positions._whole is None
    # a wrong hint (a def the node is not in) still gives the right answer
    defs = [n for n in _nodes(module) if isinstance(n, cst.FunctionDef)]
    if len(defs) >= 2:
        inner = defs[-1].body
        assert positions.lookup(inner, [defs[0]]) == expected[inner]
