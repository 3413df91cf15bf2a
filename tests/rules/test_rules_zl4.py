"""ZL401-ZL406: missing and misplaced mark_dynamic, dynamic=False in loops, export Dim pitfalls."""

from __future__ import annotations

import pytest

from conftest import codes_at, lint
from zlint.core.settings import Settings

ZL4 = Settings(select=("ZL401", "ZL402", "ZL403", "ZL404", "ZL405", "ZL406"))


def zl4(code: str) -> list[tuple[int, int, str]]:
    return codes_at(code, ZL4)


# -- ZL401 missing-mark-dynamic ----------------------------------------------------------------

def test_zl401_serving_loop_flags_the_argument_and_suggests_the_line():
    diags = lint(
        """
        import torch

        def serve(model, requests):
            compiled = torch.compile(model)
            for batch in requests:
                out = compiled(batch)
        """,
        ZL4,
    )
    assert [(d.line, d.column + 1, d.code) for d in diags] == [(7, 24, "ZL401")]
    assert "torch._dynamo.maybe_mark_dynamic(batch, 0)" in diags[0].message
    assert "recompiles at the first new size" in diags[0].message


def test_zl401_decorator_alias_and_module_compile():
    assert zl4(
        """
        import torch as T
        from torch import compile as tc

        @tc
        def step(x):
            return x * 2

        def train(net, loader):
            net.compile()
            for x, y in loader:
                step(x)
                net(y)
            while True:
                z = loader.next()
                step(z)
        """
    ) == [(12, 14, "ZL401"), (13, 13, "ZL401"), (16, 14, "ZL401")]


def test_zl401_self_attribute_compiled_in_init():
    assert zl4(
        """
        import torch

        class Server:
            def __init__(self, net):
                self.model = torch.compile(net)

            def run(self, batches):
                for b in batches:
                    self.model(b["ids"])
        """
    ) == [(10, 24, "ZL401")]


@pytest.mark.parametrize(
    "body",
    [
        # marked before the call, by every spelling
        "torch._dynamo.mark_dynamic(batch, 0)\n        compiled(batch)",
        "torch._dynamo.maybe_mark_dynamic(batch, 0)\n        compiled(batch)",
        "torch._dynamo.decorators.mark_unbacked(batch, 0)\n        compiled(batch)",
        "mmd(batch, 0)\n        compiled(batch)",
        # the same tensor every iteration, or one with literal sizes
        "compiled(fixed)",
        "x = torch.zeros(8, 16)\n        compiled(x)",
        # a size or a bool is not a tensor
        "n = batch.size(0)\n        compiled(n)",
        # not in a loop at all is below
    ],
)
def test_zl401_near_misses_in_loop(body):
    code = (
        "import torch\nfrom torch._dynamo import maybe_mark_dynamic as mmd\n\n"
        "def serve(model, requests, fixed):\n    compiled = torch.compile(model)\n"
        f"    for batch in requests:\n        {body}\n"
    )
    assert zl4(code) == []


@pytest.mark.parametrize("dynamic", ["True", "None", "flag"])
def test_zl401_quiet_when_dynamic_is_set(dynamic):
    assert zl4(
        f"""
        import torch

        def serve(model, requests, flag):
            compiled = torch.compile(model, dynamic={dynamic})
            for batch in requests:
                compiled(batch)
        """
    ) == []


def test_zl401_quiet_outside_loops_and_on_uncompiled_callables():
    assert zl4(
        """
        import re
        import torch

        pattern = re.compile("x")

        def once(model, batch):
            compiled = torch.compile(model)
            return compiled(batch)

        def loop(model, requests):
            for batch in requests:
                model(batch)
                pattern.match(batch)
        """
    ) == []


def test_zl401_name_bound_in_another_function_is_not_the_compiled_one():
    assert zl4(
        """
        import torch

        def build(net):
            model = torch.compile(net)
            return model

        def serve(model, requests):
            for batch in requests:
                model(batch)
        """
    ) == []


# -- ZL402 mark-dynamic-in-compiled-code -------------------------------------------------------

def test_zl402_in_forward_compiled_function_and_reachable_helper():
    diags = lint(
        """
        import torch
        from torch import nn
        from torch._dynamo import mark_dynamic

        def helper(x):
            torch._dynamo.maybe_mark_dynamic(x, 0)
            return x

        @torch.compile
        def step(x):
            mark_dynamic(x, 1)
            return helper(x)

        class Net(nn.Module):
            def forward(self, x):
                torch._dynamo.decorators.mark_unbacked(x, 0)
                return x
        """,
        ZL4,
    )
    # a module's forward is compiled whoever compiles the model (the project-wide scope)
    assert [(d.line, d.column + 1, d.code, d.compiled, d.scope_reason) for d in diags] == [
        (7, 5, "ZL402", True, "called from step"),
        (12, 5, "ZL402", True, "decorated with torch.compile"),
        (17, 9, "ZL402", True, "forward of Net"),
    ]


def test_zl402_quiet_at_the_call_site():
    assert zl4(
        """
        import torch

        class Net(torch.nn.Module):
            def prepare(self, x):
                torch._dynamo.mark_dynamic(x, 0)

        def run(net, x):
            torch._dynamo.mark_dynamic(x, 0)
            return torch.compile(net)(x)
        """
    ) == []


# -- ZL403 mark-dynamic-on-specialized-dim ----------------------------------------------------

@pytest.mark.parametrize(
    "specialization",
    [
        "for i in range(x.size(0)):\n        pass",
        "n = x.shape[0]\n    for i in range(n):\n        pass",
        "b, s = x.shape\n    for i in range(b):\n        pass",
        "for row in x:\n        pass",
        "parts = x.unbind(0)",
        "name = f'{x.size(0)}'",
        "if x.size(0) == 3:\n        pass",
    ],
)
def test_zl403_specializations(specialization):
    code = (
        "import torch\n\n@torch.compile\ndef step(x, y):\n"
        f"    {specialization}\n    return x\n\n"
        "def run(x):\n    torch._dynamo.mark_dynamic(x, 0)\n    return step(x, None)\n"
    )
    mark_line = code.splitlines().index("    torch._dynamo.mark_dynamic(x, 0)") + 1
    assert zl4(code) == [(mark_line, 5, "ZL403")]


@pytest.mark.parametrize(
    "specialization, mark",
    [
        ("for i in range(x.size(1)):\n        pass", "torch._dynamo.mark_dynamic(x, 0)"),  # other dim
        ("if x.size(0) == 1:\n        pass", "torch._dynamo.mark_dynamic(x, 0)"),  # 0/1: no error
        ("if x.size(0) > 4:\n        pass", "torch._dynamo.mark_dynamic(x, 0)"),  # a guard, no constant
        ("return x.view(x.size(0), -1)", "torch._dynamo.mark_dynamic(x, 0)"),  # passed into an op
        ("for i in range(x.size(0)):\n        pass", "torch._dynamo.maybe_mark_dynamic(x, 0)"),
        ("for i in range(y.size(0)):\n        pass", "torch._dynamo.mark_dynamic(x, 0)"),  # other param
    ],
)
def test_zl403_near_misses(specialization, mark):
    code = (
        "import torch\n\n@torch.compile\ndef step(x, y):\n"
        f"    {specialization}\n    return x\n\n"
        f"def run(x, z):\n    {mark}\n    return step(x, z)\n"
    )
    assert zl4(code) == []


def test_zl403_module_forward_skips_self():
    assert zl4(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, hands):
                return [h for h in hands]

        def run(hands):
            model = torch.compile(Net())
            torch._dynamo.mark_dynamic(hands, 0)
            return model(hands)
        """
    ) == [(11, 5, "ZL403")]


# -- ZL404 static-compile-with-varying-sizes --------------------------------------------------

def test_zl404_flags_the_dynamic_keyword_once():
    assert zl4(
        """
        import torch

        @torch.compile(dynamic=False)
        def step(x):
            return x

        def run(loader):
            for x in loader:
                step(x)
                step(x)
        """
    ) == [(4, 16, "ZL404")]


def test_zl404_quiet_without_a_varying_call():
    assert zl4(
        """
        import torch

        def run(net, x):
            step = torch.compile(net, dynamic=False)
            for _ in range(10):
                step(x)
        """
    ) == []


# -- ZL405 / ZL406 export ---------------------------------------------------------------------

def test_zl405_dim_min_zero_and_one_only():
    assert zl4(
        """
        import torch
        from torch.export import Dim
        from torch import export as E

        a = Dim("a", min=0)
        b = E.Dim("b", min=1, max=64)
        c = Dim("c", min=2)
        d = Dim("d")
        e = range(0, 10)
        """
    ) == [(6, 14, "ZL405"), (7, 16, "ZL405")]


def test_zl406_literal_size_one_on_dynamic_dim():
    assert zl4(
        """
        import torch
        from torch.export import Dim, export

        batch = Dim("batch")

        def go(m):
            x = torch.randn(1, 8)
            ids = torch.randint(0, 10, (4, 1))
            shapes = ({0: batch}, (None, Dim.AUTO))
            export(m, (x, ids), dynamic_shapes=shapes)
            export(m, (torch.zeros((1, 8)),), dynamic_shapes={"x": {0: Dim.DYNAMIC}})
        """
    ) == [(8, 21, "ZL406"), (9, 36, "ZL406"), (12, 29, "ZL406")]


def test_zl406_near_misses():
    assert zl4(
        """
        import torch
        from torch.export import Dim, export

        def go(m, data):
            x = torch.randn(1, 8)
            export(m, (x,), dynamic_shapes={"x": {1: Dim("s")}})
            export(m, (x,), dynamic_shapes={"x": {0: None}})
            export(m, (torch.randn(2, 8),), dynamic_shapes={"x": {0: Dim.AUTO}})
            export(m, (data,), dynamic_shapes={"x": {0: Dim.AUTO}})
            export(m, (x,))
        """
    ) == []


# -- dynamic dims declared by annotations and settings (quiets ZL1xx) --------------------------

JAX = """
import torch
from jaxtyping import Float
from torch import Tensor


def f(x: Float[Tensor, "batch seq 768"], y: Float[Tensor, "batch seq hidden"]):
    if x.shape[2] == 1:
        return x
    b, s, h = x.shape
    if h > 512:
        return x
    if x.shape[0] == 1:
        return x
    if y.size(-1) == 1:
        return y
    return x
"""


def test_jaxtyping_literal_dims_are_static():
    assert codes_at(JAX) == [(13, 8, "ZL101"), (15, 8, "ZL101")]


def test_static_dims_setting_names_static_dims():
    assert codes_at(JAX, Settings(select=("ALL",), static_dims=("hidden",))) == [(13, 8, "ZL101")]
    assert codes_at(JAX, Settings(select=("ALL",), static_dims=("hidden",), dynamic_dims=("hidden",))) == [
        (13, 8, "ZL101"),
        (15, 8, "ZL101"),
    ]


# -- what torch 2.13 really does (CPU, eager backend: dynamo's part only) ----------------------

def test_claims_hold_on_real_torch_compile():
    torch = pytest.importorskip("torch")
    from torch._dynamo.utils import counters

    def graphs(mark) -> int:
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(lambda x: x * 2, backend="eager")
        for n in (2, 3, 5):
            x = torch.ones(n, 4)
            mark(x)
            compiled(x)
        return counters["stats"]["unique_graphs"]

    # ZL401: unmarked, the second size recompiles; marked, one graph serves every size >= 2
    assert graphs(lambda x: None) == 2
    assert graphs(lambda x: torch._dynamo.maybe_mark_dynamic(x, 0)) == 1

    # ZL402: marking inside compiled code is a forbidden callable
    def marks_inside(x):
        torch._dynamo.mark_dynamic(x, 0)
        return x * 2

    torch._dynamo.reset()
    with pytest.raises(Exception, match="forbidden callable"):
        torch.compile(marks_inside, backend="eager", fullgraph=True)(torch.ones(3, 4))


def test_static_dims_from_pyproject(tmp_path):
    from conftest import run_zlint

    (tmp_path / "m.py").write_text(JAX)
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL101"]\nstatic-dims = ["hidden"]\n')
    proc = run_zlint("m.py", cwd=tmp_path)
    assert [line.split(" ")[0] for line in proc.stdout.splitlines()] == ["m.py:13:8:"]
