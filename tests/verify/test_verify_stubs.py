"""The `example(...)` registration an UNVERIFIABLE finding carries, and how it starts from what the
user registered (torch only where an example is made or run)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from zlint.verify.stubs import Registered, callable_text, example_stub, module_name, passed_on
from zlint.verify.synth import find_function, plan_inputs

SOURCE = textwrap.dedent(
    """\
    class Block(nn.Module):
        def __init__(self, config: BlockConfig, dim: int, layers, bias=True):
            super().__init__()

        def forward(self, x, ids, *, scale: float):
            h = self.embed(ids)
            if x.size(1) > 8:
                return x
            return x * scale


    def helper(x, size: Tuple[int, int]):
        return x
    """
)


def test_a_method_gets_a_factory_with_the_constructor_signature(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    path = package / "blocks.py"
    path.write_text(SOURCE, encoding="utf-8")
    tree = ast.parse(SOURCE)
    func = find_function(tree, "Block.forward")
    plan = plan_inputs(func, [7], True)
    assert module_name(str(path)) == "pkg.blocks"
    assert example_stub(str(path), tree, "Block.forward", plan).splitlines() == [
        "import torch",
        "from zlint.verify import example",
        "from pkg.blocks import Block",
        "example(Block.forward, lambda n: ((torch.randn(4, n), torch.randint(0, 4, (4, 4))), dict(scale=1.0)), "
        "factory=lambda: Block(config=BlockConfig(), dim=4, layers=...))",
    ]


def test_a_function_gets_no_factory(tmp_path):
    path = tmp_path / "helpers.py"
    path.write_text(SOURCE, encoding="utf-8")
    tree = ast.parse(SOURCE)
    plan = plan_inputs(find_function(tree, "helper"), [], False)
    assert example_stub(str(path), tree, "helper", plan).splitlines()[-1] == (
        "example(helper, lambda n: (torch.randn(n, 4), (4, 4)))"
    )


def test_small_config_overrides_keep_widths_divisible_by_heads():
    from zlint.verify.sandbox.configs import small_overrides

    defaults = {
        "hidden_size": 768, "num_attention_heads": 12, "num_key_value_heads": 4, "intermediate_size": 3072,
        "num_hidden_layers": 12, "vocab_size": 50257, "eos_token_id": 50256, "conv_dim": (512, 512),
        "conv_kernel": (10, 3), "patch_size": 16, "max_position_embeddings": 4096, "head_dim": 64,
        "hidden_dropout": 0.1, "num_conv_pos_embedding_groups": 16,
    }
    assert small_overrides(defaults) == {
        "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
        "num_hidden_layers": 1, "vocab_size": 50257, "conv_dim": (64, 64), "max_position_embeddings": 512,
        "head_dim": 16,
    }


# -- a stub starts from what the user registered -------------------------------------------------


def test_registered_values_replace_the_plans_own_and_a_factory_its_placeholders(tmp_path):
    path = tmp_path / "blocks.py"
    path.write_text(SOURCE, encoding="utf-8")
    tree = ast.parse(SOURCE)
    plan = plan_inputs(find_function(tree, "Block.forward"), [7], True)
    start = Registered(params={"x": "torch.randn(n, 16)", "scale": "0.5"}, factory="lambda: blocks.Block(cfg, 16, 2)")
    assert example_stub(str(path), tree, "Block.forward", plan, start).splitlines()[-1] == (
        "example(Block.forward, lambda n: ((torch.randn(n, 16), torch.randint(0, 4, (4, 4))), dict(scale=0.5)), "
        "factory=lambda: blocks.Block(cfg, 16, 2))"
    )
    # a function has no factory, whatever its class-mates registered; with no plan, the registered call
    helper = plan_inputs(find_function(tree, "helper"), [], False)
    assert example_stub(str(path), tree, "helper", helper, Registered(factory="lambda: X()")).splitlines()[-1] == (
        "example(helper, lambda n: (torch.randn(n, 4), (4, 4)))"
    )
    assert example_stub(str(path), tree, "helper", None, Registered(call="lambda n: (torch.randn(n, 16),)")).endswith(
        "example(helper, lambda n: (torch.randn(n, 16),))"
    )


def test_a_caller_lends_the_values_of_the_arguments_it_passes_on_unchanged():
    tree = ast.parse(textwrap.dedent(
        """\
        def pad(x, y, length):
            return x

        def forward(x, mask):
            a = pad(x, mask, 4)
            b = pad(x, x + 1, length=4)
            return pad(*a)
        """
    ))
    caller, helper = find_function(tree, "forward"), find_function(tree, "pad")
    values = {"x": "torch.randn(n, 16)", "mask": "torch.rand(n) > 0.5"}
    # x is passed on unchanged by both calls; y once as mask, once as an expression; a starred call
    # says nothing; length is a literal
    assert passed_on(caller, helper, False, values) == {"x": "torch.randn(n, 16)"}


#: two lambdas on one line: the factory's source is the second
FACTORIES = "make, build = lambda n: (n, 1), lambda: dict(width=16)\n\n\ndef named():\n    return 1\n"


def test_a_factory_reads_back_as_its_source(tmp_path):
    path = tmp_path / "facts.py"
    path.write_text(FACTORIES, encoding="utf-8")
    namespace: dict = {}
    exec(compile(FACTORIES, str(path), "exec"), namespace)
    assert callable_text(namespace["build"]) == "lambda: dict(width=16)"
    assert callable_text(namespace["make"]) == "lambda n: (n, 1)"
    assert callable_text(namespace["named"]) == "named"
    typed = {}
    exec(compile("f = lambda: 1\n", "<stdin>", "exec"), typed)
    assert callable_text(typed["f"]) == ""  # no file to read it from


def test_registered_values_read_back_in_n():
    torch = pytest.importorskip("torch")
    from zlint.verify.sandbox.example_text import describe, in_n, value_text

    sizes = [2, 3, 5]
    assert [in_n(v, sizes) for v in ([2, 3, 5], [32, 48, 80], [3, 4, 6], [1, 3, 7], [7, 7, 7], [4, 9, 25])] == [
        "n", "16 * n", "n + 1", "2 * n - 3", "7", "...",
    ]
    made = {n: torch.randint(0, 30, (n, 8)) for n in sizes}
    made[5][0, 0] = 99  # integer tensors are indices: kept below the largest one seen
    assert value_text(list(made.values()), sizes) == "torch.randint(0, 100, (n, 8))"
    assert value_text([torch.rand(n) > 0.5 for n in sizes], sizes) == "torch.rand(n) > 0.5"
    assert value_text([torch.randn(2 * n, 3, dtype=torch.float16) for n in sizes], sizes) == (
        "torch.randn(2 * n, 3, dtype=torch.float16)")
    rows = [[torch.randn(n, 32) for _ in range(n)] for n in sizes]
    assert value_text(rows, sizes) == "[torch.randn(n, 32) for _ in range(n)]"
    assert value_text([{"k": (n, 4), "cfg": object()} for n in sizes], sizes) == "{'k': (n, 4), 'cfg': ...}"

    def pool(likes, mask=None, *, scale=1.0):
        return likes

    made_at = lambda n: ((torch.randn(n, 16),), {"scale": 0.5})  # noqa: E731
    assert describe(pool, made_at, [0, 1, 2, 3, 5, 8]) == {
        "call": "lambda n: ((torch.randn(n, 16),), dict(scale=0.5))",
        "params": {"likes": "torch.randn(n, 16)", "scale": "0.5"},
    }


#: a function, a helper and a method, each UNVERIFIABLE although the user registered an example
#: near it: for ``pool`` itself, for ``clip``'s caller ``Head.forward``, for ``Head.scan``'s class
REGISTERED_MODULE = textwrap.dedent(
    """\
    import torch
    from torch import nn


    def pool(likes, mask=None):
        if mask is not None:
            if likes.size(0) == 1:  # line 7: never reached with the registered inputs
                return likes.sum(0)
        return likes.mean(0)


    def clip(x, y, limit: int):
        print("clipping")  # line 13: a break before line 14 and no effect after it
        if x.size(0) > limit:
            return x[:limit] + y[:limit]
        return x


    class Head(nn.Module):
        def __init__(self, dim, limit=6):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            self.limit = limit

        def forward(self, x):
            return clip(self.proj(x), x, self.limit)

        def scan(self, *xs):
            if xs[0].size(0) > 4:  # line 29: *xs: no inputs can be synthesized
                return xs[0]
            return xs[-1]
    """
)
REGISTERED_EXAMPLES = textwrap.dedent(
    """\
    import torch

    import heads
    from zlint.verify import example

    example(heads.pool, lambda n: (torch.randn(n, 16),))
    example(heads.Head.forward, lambda n: (torch.randn(n, 16),), factory=lambda: heads.Head(16, limit=3))
    """
)


def test_an_unverifiable_finding_registers_from_the_users_own_example(tmp_path):
    pytest.importorskip("torch")
    import json

    from conftest import run_zlint

    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\n")
    (tmp_path / "heads.py").write_text(REGISTERED_MODULE)
    (tmp_path / "zlint_examples.py").write_text(REGISTERED_EXAMPLES)
    proc = run_zlint("--verify", "--backend", "eager", "--format", "json", "--scope", "all", "heads.py",
                     cwd=tmp_path, timeout=600)
    found = {(d["location"]["row"], d["code"]): d["verify"] for d in json.loads(proc.stdout)}
    stubs = {key: v["example"].splitlines()[-1] for key, v in found.items() if v["status"] == "UNVERIFIABLE"}
    assert stubs == {
        # its own example's shapes (16 features), not the placeholder width 4, and a mask that
        # enters the `if mask is not None:` branch its example never took
        (7, "ZL101"): "example(pool, lambda n: (torch.randn(n, 16), torch.randn(4, 4)))",
        # y is forward's x, passed on unchanged: the caller's registered shape; x is computed there
        (14, "ZL103"): "example(clip, lambda n: (torch.randn(n, 4), torch.randn(n, 16), 4))",
        # the factory registered for forward builds the module for another method of its class
        (29, "ZL103"): "example(Head.scan, lambda n: (...), factory=lambda: heads.Head(16, limit=3))",
    }
