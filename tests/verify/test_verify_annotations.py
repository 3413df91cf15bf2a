"""Synthesized inputs follow what the annotations declare: a parameter declared int, float,
bool or a list of ints never gets a tensor (no torch needed to plan)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from zlint.verify.annotations import declared, value_for
from zlint.verify.synth import plan_inputs


def _kind(text: str):
    found = declared(ast.parse(text, mode="eval").body)
    return (found.kind, found.length) if found and found.kind == "ints" else found.kind if found else None


@pytest.mark.parametrize(("annotation", "kind"), [
    ("int", "int"), ("float", "float"), ("bool", "bool"), ("str", "str"),
    ("List[int]", ("ints", 2)), ("Tuple[int, int, int]", ("ints", 3)), ("tuple[int, ...]", ("ints", 2)),
    ("Optional[int]", "int"), ("int | None", "int"), ("Union[int, List[int]]", "int"),
    ("Union[List[int], int]", "int"), ("Optional[List[int]]", ("ints", 2)),
    ("torch.Tensor", "tensor"), ("Optional[torch.Tensor]", "tensor"), ("Union[int, Tensor]", "tensor"),
    ("'torch.Tensor'", "tensor"), ("Float[Tensor, 'b c']", "tensor"), ("nn.Module", "other"),
    ("List[torch.Tensor]", "other"),
])
def test_declared_kinds(annotation, kind):
    assert _kind(annotation) == kind


def test_values_are_neutral_by_name():
    assert value_for("groups", declared(ast.parse("int", mode="eval").body), 4) == (True, 1)
    assert value_for("drop_prob", declared(ast.parse("float", mode="eval").body), 4) == (True, 0.0)
    assert value_for("size", declared(ast.parse("Tuple[int, int]", mode="eval").body), 4) == (True, (4, 4))
    assert value_for("mode", declared(ast.parse("str", mode="eval").body), 4) == (False, None)


def _plan(source: str, focus: list[int] | None = None, is_method: bool = False):
    func = ast.parse(textwrap.dedent(source)).body[0]
    return plan_inputs(func, focus or [], is_method)


def test_int_and_list_parameters_get_values_not_tensors():
    plan = _plan(
        """\
        def resample(posemb: torch.Tensor, new_size: List[int], scale: Union[int, List[int]], flag: bool,
                     num_prefix_tokens: int = 1):
            if posemb.shape[1] == new_size[0] * new_size[1] + num_prefix_tokens:
                return posemb
            return posemb * scale
        """,
        focus=[3],
    )
    assert [(p.name, p.kind, p.value) for p in plan.params] == [
        ("posemb", "tensor", None), ("new_size", "value", [4, 4]), ("scale", "value", 1), ("flag", "value", False),
        ("num_prefix_tokens", "default", None),
    ]
    assert plan.describe() == "posemb[4,n] new_size=[4, 4] scale=1 flag=False"


def test_an_int_annotation_wins_over_tensor_like_uses():
    # ``size.numel`` reads like a tensor method; the annotation says what callers pass
    plan = _plan(
        """\
        def f(x, size: int):
            if x.size(0) > size.numel():
                return x
        """,
        focus=[2],
    )
    assert [(p.name, p.kind) for p in plan.params] == [("x", "tensor"), ("size", "value")]


def test_a_required_str_is_a_problem_not_a_tensor():
    plan = _plan("def f(x, mode: str):\n    return x if x.size(0) > 1 else x\n")
    assert plan.problem == "f needs a value for `mode: str`: register an example"


def test_the_function_own_unpacking_beats_the_layer_rule():
    plan = _plan(
        """\
        def forward(self, x):
            b, c, t, h, w = x.shape
            return self.conv(x)
        """,
        is_method=True,
    )
    assert len(plan.params[0].labels) == 5  # not the 4 a conv submodule would suggest


def test_a_layer_fed_after_an_unconditional_rebinding_says_nothing_of_the_parameter():
    plan = _plan(
        """\
        def forward(self, x):
            x = x.flatten(1)
            return self.conv(x)
        """,
        is_method=True,
    )
    assert len(plan.params[0].labels) == 2 and plan.rank_guessed == {"x"}


def test_a_layer_fed_after_a_conditional_rebinding_still_gives_the_rank():
    plan = _plan(
        """\
        def forward(self, x):
            if x.shape[-1] != 8:
                x = F.interpolate(x, size=(8, 8))
            return self.conv(x)
        """,
        is_method=True,
    )
    assert len(plan.params[0].labels) == 4
