"""The ``example(...)`` registration an UNVERIFIABLE finding carries (no torch)."""

from __future__ import annotations

import ast
import textwrap

from zlint.verify.stubs import example_stub, module_name
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
