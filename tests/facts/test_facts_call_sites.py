"""Not a tensor from how a value is passed and built: parameters that no call in the module fills
with a tensor (zlint.facts.call_sites), and submodules whose ``forward`` returns a list."""

from __future__ import annotations

import ast
import textwrap

import pytest

from conftest import codes_at
from zlint.candidates import stage as candidates
from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.rules import visitors

SEQ2IMG = """\
import torch

def seq2img(seq, p, shape: torch.Tensor):
    if isinstance(shape, tuple):
        h, w = shape[-2:]
    elif isinstance(shape, torch.Tensor):
        h, w = int(shape[0]), int(shape[1])
    return seq.reshape(-1, h // p, w // p)

def model(hidden: torch.Tensor, img):
    return seq2img(img, 2, {arg})
"""


@pytest.mark.parametrize(
    "arg", ["hidden.shape", "hidden.size()", "hidden.shape[-2:]", "(8, 8)", "[h.shape[0] for h in img]", "None"]
)
def test_a_tensor_branch_no_caller_reaches_reports_nothing(arg):
    assert codes_at(SEQ2IMG.format(arg=arg)) == []


@pytest.mark.parametrize("arg", ["hidden", "torch.tensor(hidden.shape)", "img"])
def test_one_caller_that_may_pass_a_tensor_keeps_the_tensor_branch(arg):
    # a tensor, a torch call, an unannotated parameter: the caller may pass a tensor
    assert codes_at(SEQ2IMG.format(arg=arg)) == [(7, 16, "ZL301"), (7, 31, "ZL301")]


def test_every_call_counts_and_one_tensor_keeps_it():
    other = "\ndef other(hidden: torch.Tensor, img):\n    return seq2img(img, 2, hidden)\n"
    code = SEQ2IMG.format(arg="hidden.shape") + other
    assert codes_at(code) == [(7, 16, "ZL301"), (7, 31, "ZL301")]


@pytest.mark.parametrize(
    "extra",
    [
        "\nHANDLERS = [seq2img]\n",  # passed as a value: some calls are out of sight
        "\ndef other(args):\n    return seq2img(*args)\n",  # a starred call fills any parameter
    ],
)
def test_a_function_whose_calls_are_not_all_seen_gets_no_call_site_facts(extra):
    code = SEQ2IMG.format(arg="hidden.shape") + extra
    assert codes_at(code) == [(7, 16, "ZL301"), (7, 31, "ZL301")]


def test_a_function_nothing_calls_keeps_its_annotation():
    code = SEQ2IMG.format(arg="hidden.shape").replace("    return seq2img(img, 2, hidden.shape)\n", "    return img\n")
    assert codes_at(code) == [(7, 16, "ZL301"), (7, 31, "ZL301")]


LOSS = """\
import torch
from torch import Tensor, nn

class Loss(nn.Module):
    def forward(self, logits: Tensor, class_labels: {annotation}):
        num = self.num_masks(class_labels)
        return logits.sum() / num

    def num_masks(self, class_labels: torch.Tensor):
        return sum(len(c) for c in class_labels)
"""


def test_a_method_called_with_a_list_the_caller_annotates_is_no_tensor():
    assert codes_at(LOSS.format(annotation="list[Tensor]")) == []


@pytest.mark.parametrize("annotation", ["Tensor", "torch.Tensor | None"])
def test_a_method_called_with_a_tensor_the_caller_annotates_keeps_its_annotation(annotation):
    assert codes_at(LOSS.format(annotation=annotation)) == [(10, 36, "ZL202")]


def test_a_method_called_from_another_class_gets_no_call_site_facts():
    code = LOSS.format(annotation="list[Tensor]") + (
        "\nclass Other(nn.Module):\n    def forward(self, loss, labels):\n        return loss.num_masks(labels)\n"
    )
    assert codes_at(code) == [(10, 36, "ZL202")]


CORE = """\
import torch
from torch import Tensor, nn

def attention_core(value: Tensor, value_spatial_shapes: Tensor):
    out = []
    for level, (h, w) in enumerate(value_spatial_shapes):
        out.append(value[level].reshape(h, w))
    return out

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.core = attention_core

    def forward(self, value: Tensor, images: Tensor):
        {binding}
        return self.core(value, shapes)
"""


@pytest.mark.parametrize(
    "binding",
    [
        "shapes = [(8, 8), (4, 4)]",
        "shapes = [(h, w) for h, w in LEVELS]",
        "shapes = list(LEVELS)",
        "shapes = []\n        shapes.append((8, 8))",
    ],
)
def test_a_name_its_caller_binds_to_a_list_is_no_tensor_through_an_attribute_alias(binding):
    assert codes_at(CORE.format(binding=binding)) == []


@pytest.mark.parametrize(
    "binding",
    [
        "shapes = torch.tensor([(8, 8), (4, 4)])",  # a tensor built from the list
        "shapes = [(8, 8)]\n        shapes = torch.as_tensor(shapes)",  # rebound to a tensor
        "shapes = images",
    ],
)
def test_a_name_its_caller_may_bind_to_a_tensor_keeps_the_annotation(binding):
    assert codes_at(CORE.format(binding=binding)) == [(6, 26, "ZL202")]


CHAIN = """\
import torch
from torch import Tensor

def inner(x: Tensor, sizes: Tensor):
    for s in sizes:
        x = x + s
    return x

def middle(x: Tensor, sizes):
    return inner(x, sizes)

def outer(x: Tensor, sizes=None):
    return middle(x, sizes)

def top(x: Tensor):
    return outer(x, {arg})
"""


def test_parameters_passed_on_are_followed_up_the_chain():
    # top passes a list to outer, outer passes its parameter to middle, middle to inner
    assert codes_at(CHAIN.format(arg="[1, 2]")) == []
    assert codes_at(CHAIN.format(arg="x")) == [(5, 14, "ZL202")]


def test_a_default_counts_as_what_a_call_passes():
    code = CHAIN.format(arg="[1, 2]") + "\ndef bottom(x: Tensor):\n    return outer(x)\n"
    assert codes_at(code) == []
    code = code.replace("sizes=None", "sizes=DEFAULT")  # a global: what it holds is not read
    assert codes_at(code) == [(5, 14, "ZL202")]


BACKBONE = """\
import torch
from torch import nn

class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Conv2d(3, 8, 3)

    def forward(self, pixels, mask):
        {body}

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Encoder()

    def forward(self, pixels: torch.Tensor, mask: torch.Tensor):
        features = self.backbone(pixels, mask)
        sources = []
        for level, (source, m) in enumerate(features):
            sources.append(source)
        return sources
"""


@pytest.mark.parametrize(
    "body",
    [
        "out = []\n        for f in [self.model(pixels)]:\n            out.append((f, mask))\n        return out",
        "return [(self.model(pixels), mask)]",
        "return [(f, mask) for f in (self.model(pixels),)]",
        "return EncoderOutput(features=[(self.model(pixels), mask)])",  # an instance of a class
        "return outputs.EncoderOutput(features=[(self.model(pixels), mask)])",
    ],
)
def test_a_submodule_whose_forward_returns_a_list_or_an_object_gives_no_tensor(body):
    assert codes_at(BACKBONE.format(body=body)) == []


@pytest.mark.parametrize(
    "body",
    [
        "return self.model(pixels)",
        "out = []\n        out = torch.stack(out)\n        return out",  # rebound to a tensor
        "return torch.Tensor(self.model(pixels))",  # torch's tensor types are no other class
        "return nn.Identity()(self.model(pixels))",
        "if mask is None:\n            return [(self.model(pixels), mask)]\n        return self.model(pixels)",
    ],
)
def test_a_submodule_whose_forward_may_return_a_tensor_gives_a_tensor(body):
    line = 20 + body.count("\n")  # the loop over the features
    assert codes_at(BACKBONE.format(body=body)) == [(line, 35, "ZL202")]


@pytest.mark.parametrize("source", [SEQ2IMG.format(arg="hidden.shape"), LOSS.format(annotation="list[Tensor]"),
                                    CORE.format(binding="shapes = [(8, 8)]"), CHAIN.format(arg="[1, 2]")])
def test_the_fast_path_keeps_the_callers(source):
    # the callers are no candidates of any rule; the facts of the callee read them all the same
    text = textwrap.dedent(source) + "\n\ndef unrelated(x):\n    return x + 1\n"
    settings = Settings()
    fast = lint_source(text, "m.py", settings, full_path=False)
    full = lint_source(text, "m.py", settings, full_path=True)
    assert fast.diagnostics == full.diagnostics
    tensor_caller = text.replace("hidden.shape)", "hidden)").replace("[1, 2])", "x)")
    fast = lint_source(tensor_caller, "m.py", settings, full_path=False)
    full = lint_source(tensor_caller, "m.py", settings, full_path=True)
    assert fast.diagnostics == full.diagnostics


@pytest.mark.parametrize(
    ("parameter", "binding", "expected"),
    [
        ("spatial_shapes_list=None", "shapes = spatial_shapes_list", []),
        ("level_lists", "shapes = level_lists", []),
        # near misses: a name that says nothing, an annotation that says tensor, a rebinding
        ("spatial_shapes=None", "shapes = spatial_shapes", [(6, 26, "ZL202")]),
        ("spatial_shapes_list: Tensor", "shapes = spatial_shapes_list", [(6, 26, "ZL202")]),
        (
            "spatial_shapes_list=None",
            "spatial_shapes_list = torch.stack(spatial_shapes_list)\n        shapes = spatial_shapes_list",
            [(6, 26, "ZL202")],
        ),
    ],
)
def test_a_parameter_named_as_a_list_and_never_rebound_is_no_tensor_at_its_calls(parameter, binding, expected):
    code = CORE.format(binding=binding).replace("images: Tensor", parameter)
    assert codes_at(code) == expected


def _plan_text(code: str) -> str:
    text = textwrap.dedent(code)
    plan = candidates.plan(text, ast.parse(text), visitors(["ZL202", "ZL301"]), Settings())
    assert plan is not None and plan.text is not None
    return plan.text


def test_the_candidate_stage_keeps_the_callers_whose_calls_the_facts_read():
    code = SEQ2IMG.format(arg="hidden.shape") + "\ndef unrelated(x):\n    return x + 1\n"
    text = _plan_text(code)
    assert "return seq2img(img, 2, hidden.shape)" in text and "return x + 1" not in text
    # a mention that is no call leaves the function without call-site facts: callers not needed
    text = _plan_text(code + "\nHANDLERS = [seq2img]\n")
    assert "return seq2img(img, 2, hidden.shape)" not in text


def test_the_candidate_stage_skips_calls_of_another_class_s_own_method():
    other = (
        "\nclass Other(nn.Module):\n    def forward(self, labels):\n        return self.num_masks(labels)\n\n"
        "    def num_masks(self, labels):\n        return 1\n"
    )
    text = _plan_text(LOSS.format(annotation="list[Tensor]") + other)
    assert "num = self.num_masks(class_labels)" in text  # the call in its own class
    assert "return self.num_masks(labels)" not in text  # Other.num_masks: another function


OUTPUT = """\
import torch
from torch import nn

class Encoder(nn.Module):
    def forward(self, pixels, return_dict=True):
        if not return_dict:
            return tuple(v for v in [pixels * 2, None] if v is not None)
        return {returned}

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()

    def forward(self, pixels: torch.Tensor, encoder_outputs=None):
        if encoder_outputs is None:
            encoder_outputs = self.encoder(pixels)
        if len(encoder_outputs) > 2:  # after the if: what it bound
            return encoder_outputs
        hidden = encoder_outputs[0]
        return [h.sum() for h in hidden]
"""


def test_a_submodule_whose_forward_returns_an_object_holds_tensors():
    # len() of the output object is its field count; its [0] is the hidden states, a tensor
    assert codes_at(OUTPUT.format(returned="BaseModelOutput(last_hidden_state=pixels * 2)")) == [(21, 34, "ZL202")]
    # near miss: a forward that returns the tensor itself
    assert codes_at(OUTPUT.format(returned="pixels * 2")) == [(18, 12, "ZL103"), (21, 34, "ZL202")]


@pytest.mark.parametrize("arg", ["int(hidden.shape[0])", "len(img)", "hidden.shape[0] * 2"])
def test_python_numbers_built_from_sizes_are_no_tensor(arg):
    assert codes_at(SEQ2IMG.format(arg=arg)) == []


@pytest.mark.parametrize("arg", ["abs(hidden)", "round(hidden)", "max(hidden, img)", "hidden * 2"])
def test_builtins_and_arithmetic_that_keep_a_tensor_keep_the_tensor_branch(arg):
    assert codes_at(SEQ2IMG.format(arg=arg)) == [(7, 16, "ZL301"), (7, 31, "ZL301")]
