"""The fast traversal (zlint/cst/batched.py) visits exactly like LibCST: same events, same order."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper

from zlint.cst.batched import FastWrapper

ROOT = Path(__file__).resolve().parents[2]

TRICKY = '''\
from __future__ import annotations
from . import sibling
from .pkg import (a as b, c)
from x import *
import os.path as osp, sys
@decorator(arg=1)
class K(Base, metaclass=M):
    """doc"""
    x: int = 3
    async def f(self, /, a, *args, b=2, **kw) -> list[int]:
        global g
        async with ctx() as (u, v):
            async for i in aiter():
                yield f"{i!r:>{width}} {a=}" f'{b:{c}}'
        try:
            pass
        except* (ValueError, TypeError) as e:
            raise RuntimeError from e
        finally:
            del u
        match a:
            case [1, *rest] | {"k": v, **kw2} if v > 0:
                pass
            case Point(x=0, y=_):
                pass
        lam = lambda q, *, r=1: (q, r)
        w = [z async for z in gen() if z if not z] + {k: v for k, v in d.items()}
        s = {*a, *b}; t = (*a,); n = a[1:2:3, ..., None]
        return (yield) if a else (await b) @ c ** -d
while (n := 10) > 0: n -= 1
else: pass
for i in range(3): print(i, sep="", end="\\n")
with open("f") as fh, open("g"): ...
assert x, "m"
type Alias[T] = list[T]
def generic[T: int, *Ts, **P](x: T) -> T: return x
'''


def _all_node_types():
    seen, stack = set(), [cst.CSTNode]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in seen:
                seen.add(sub)
                stack.append(sub)
    return [c for c in seen if dataclasses.is_dataclass(c)]


def _recorder_class():
    """A batchable visitor with a visit/leave hook for every node type and every field."""
    namespace = {}

    def hook(method_name, event, label):
        def method(self, node):
            self.events.append((event, label, id(node)))
        method.__name__ = method_name  # LibCST finds hooks by their __name__
        namespace[method_name] = method

    for cls in _all_node_types():
        name = cls.__name__
        hook(f"visit_{name}", "visit", name)
        hook(f"leave_{name}", "leave", name)
        for f in dataclasses.fields(cls):
            hook(f"visit_{name}_{f.name}", "visit_attr", f"{name}.{f.name}")
            hook(f"leave_{name}_{f.name}", "leave_attr", f"{name}.{f.name}")

    def __init__(self):
        cst.BatchableCSTVisitor.__init__(self)
        self.events = []

    namespace["__init__"] = __init__
    return type("Recorder", (cst.BatchableCSTVisitor,), namespace)


Recorder = _recorder_class()


def _events(module: cst.Module, wrapper_class):
    recorder = Recorder()
    wrapper_class(module, unsafe_skip_copy=True).visit_batched([recorder])
    return recorder.events


SOURCES = {"tricky": TRICKY, "crlf": TRICKY.replace("\n", "\r\n")}
for _path in ("zlint/engine/lint.py", "zlint/facts/size_facts.py", "examples/likes_pooler.py"):
    if (ROOT / _path).exists():
        SOURCES[_path] = (ROOT / _path).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_fast_walk_fires_libcsts_events_in_libcsts_order(name):
    try:
        module = cst.parse_module(SOURCES[name])
    except cst.ParserSyntaxError:
        pytest.skip("syntax not supported by this libcst")
    expected = _events(module, MetadataWrapper)
    assert len(expected) > 100
    assert _events(module, FastWrapper) == expected


class _Skipper(cst.CSTVisitor):
    """A plain visitor that skips class bodies (returns False), like the size facts' scans."""

    def __init__(self):
        super().__init__()
        self.events = []

    def on_visit(self, node):
        self.events.append(("visit", type(node).__name__, id(node)))
        return not isinstance(node, cst.ClassDef) or node.name.value == "K"

    def on_visit_attribute(self, node, attribute):
        self.events.append(("attr", attribute, id(node)))

    def on_leave(self, original_node):
        self.events.append(("leave", type(original_node).__name__, id(original_node)))


def test_plain_visit_matches_libcst_including_skipped_children():
    from zlint.cst.batched import visit

    module = cst.parse_module(TRICKY + "class Skipped:\n    def g(self):\n        return 1\n")
    expected, got = _Skipper(), _Skipper()
    module.visit(expected)
    visit(module, got)
    assert len(expected.events) > 100 and got.events == expected.events


def _hooked_recorder(base, skip_in: str | None = None):
    """A visitor with visit/leave hooks on every non-trivia node type only (like every rule and
    fact): the fast walk skips whitespace and punctuation for it. ``skip_in``: a plain visitor
    whose ``visit_ClassDef`` returns False for that class (children skipped, as in LibCST)."""
    from zlint.cst.batched import _trivia_names

    namespace = {}

    def hook(method_name, event, label):
        def method(self, node):
            self.events.append((event, label, id(node)))
            if label == "ClassDef" and event == "visit" and node.name.value == skip_in:
                return False
            return None

        method.__name__ = method_name
        namespace[method_name] = method

    for cls in _all_node_types():
        if cls.__name__ not in _trivia_names():  # by name: LibCST keeps pre-slots twins of its classes
            hook(f"visit_{cls.__name__}", "visit", cls.__name__)
            hook(f"leave_{cls.__name__}", "leave", cls.__name__)

    def __init__(self):
        base.__init__(self)
        self.events = []

    namespace["__init__"] = __init__
    return type("HookedRecorder", (base,), namespace)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_trivia_skipping_walk_keeps_every_hooked_event(name):
    from zlint.cst.batched import IS_WALKED, _Batch

    module = cst.parse_module(SOURCES[name])
    recorder_class = _hooked_recorder(cst.BatchableCSTVisitor)
    expected, got = recorder_class(), recorder_class()
    MetadataWrapper(module, unsafe_skip_copy=True).visit_batched([expected])
    batch = _Batch([got])
    assert batch._cache is IS_WALKED  # the trivia really are skipped here
    batch.walk(module)
    assert len(expected.events) > 100 and got.events == expected.events


def test_trivia_skipping_plain_visit_obeys_false_like_libcst():
    from zlint.cst.batched import visit

    module = cst.parse_module(TRICKY + "class Skipped:\n    def g(self):\n        return 1\n")
    recorder_class = _hooked_recorder(cst.CSTVisitor, skip_in="Skipped")
    expected, got = recorder_class(), recorder_class()
    module.visit(expected)
    visit(module, got)
    names = [label for _, label, _ in expected.events]
    assert "ClassDef" in names and names.count("FunctionDef") >= 3
    assert got.events == expected.events
