"""Tensors from evidence: torch results (tuples included), nn layers, uses only a tensor allows,
and evidence against (strings, isinstance, list methods, literals) that wins."""

from __future__ import annotations

import pytest
from test_size_facts import facts

from conftest import codes_at
from zlint.facts.lattice import Kind


def kind_of(code: str, name: str) -> Kind | None:
    """What ``name`` holds at a final ``use(name)`` in ``code``."""
    return facts(code + f"    use({name})\n").get(name)


@pytest.mark.parametrize(
    "binding, name",
    [
        ("values, idx = x.max(dim=-1)", "values"),
        ("values, idx = x.max(dim=-1)", "idx"),
        ("values, idx = torch.max(x, 1)", "idx"),
        ("v, i = x.topk(3)", "i"),
        ("s, order = torch.sort(x)", "order"),
        ("u, counts = torch.unique(x, return_counts=True)", "counts"),
        ("a, b = x.split(2, dim=1)", "b"),
        ("first = x.chunk(3)[0]", "first"),
        ("top = x.max(dim=1).values", "top"),
        ("w = torch.where(x > 0, x, y)", "w"),
        ("scores, labels = x.sigmoid().max(dim=-1)", "labels"),
    ],
)
def test_tensors_from_tuple_results(binding, name):
    code = f"import torch\ndef f(x: torch.Tensor, y):\n    {binding}\n"
    assert kind_of(code, name) is Kind.TENSOR


def test_split_pieces_in_a_loop_are_tensors_and_the_split_is_not():
    found = facts(
        "import torch\ndef f(x: torch.Tensor):\n    parts = x.split(2)\n    for p in parts:\n        use(p, parts)\n"
    )
    assert found["p"] is Kind.TENSOR
    assert found["parts"] is Kind.TENSORS


@pytest.mark.parametrize(
    "use",
    [
        "grid.tolist()", "grid.numel()", "grid.any(dim=1)", "grid.sum(dim=-1)", "grid.masked_fill(m, 0)",
        "grid.size(0)", "grid.unsqueeze(0)", "grid[grid > 0]", "F.relu(grid)", "torch.sigmoid(grid)",
    ],
)
def test_unannotated_names_become_tensors_from_their_uses(use):
    code = (
        "import torch\nimport torch.nn.functional as F\n"
        f"def f(grid, m):\n    y = {use}\n"
    )
    assert kind_of(code, "grid") is Kind.TENSOR


@pytest.mark.parametrize(
    "use",
    [
        "grid.sum()", "grid.any()", "len(grid)", "grid + 1", "torch.stack(grid)",
        "torch.zeros(grid)", "torch.tensor(grid)", "grid.split(',')",
    ],
)
def test_uses_that_lists_strings_or_arrays_allow_are_no_evidence(use):
    code = f"import torch\ndef f(grid):\n    y = {use}\n"
    assert kind_of(code, "grid") is None


def test_tolist_is_no_evidence_in_a_file_that_imports_numpy():
    code = "import numpy as np\nimport torch\ndef f(grid):\n    y = grid.tolist()\n"
    assert kind_of(code, "grid") is None


@pytest.mark.parametrize(
    "against",
    [
        'if kernel == "fir":\n        pass',
        'if kernel in ("fir", "iir"):\n        pass',
        "if isinstance(kernel, (str, int, list)):\n        pass",
        "kernel.append(1)",
        "kernel = (1, 3, 3, 1)",
    ],
)
def test_evidence_against_wins_over_an_annotation(against):
    code = f"import torch\ndef f(kernel: torch.Tensor):\n    {against}\n    y = kernel.sum(dim=0)\n"
    assert kind_of(code, "kernel") is None


def test_an_isinstance_check_for_tensor_narrows_its_branch_only():
    code = "import torch\ndef f(x):\n    y = x.numel()\n    if isinstance(x, torch.Tensor):\n        use(x)\n"
    assert facts(code)["x"] is Kind.TENSOR
    assert kind_of(code, "x") is None  # after the branch: maybe no tensor


def test_non_tensor_annotations_are_evidence_against():
    code = "import torch\ndef f(x: int, y: list[int]):\n    a = x.size(0)\n    b = y.tolist()\n"
    assert kind_of(code, "x") is None
    assert kind_of(code, "y") is None


def test_evidence_is_per_binding():
    # `feats` is a list of tensors until it is rebound to a tensor: only the tensor is one
    code = """\
import torch
def f(model, x):
    feats = model(x)
    for a in feats:
        use(feats)
    feats = torch.cat(feats, 1)
    feats.sum(dim=1)
"""
    found = facts(code)
    assert found["feats"] is Kind.TENSOR  # the last use, after the rebinding
    assert codes_at(code) == []  # the loop over the list is no tensor iteration


def test_tensor_only_methods_make_tensors_of_unknown_receivers():
    code = "import torch\ndef f(coords):\n    sentinel = (coords == -1).all(dim=-1)\n"
    assert kind_of(code, "sentinel") is Kind.TENSOR
    code = "import torch\ndef f(coords):\n    sentinel = (coords == -1).all()\n"
    assert kind_of(code, "sentinel") is None  # numpy and Python lists answer .all() too


@pytest.mark.parametrize(
    "layer, call",
    [
        ("nn.Linear(8, 8)", "self.proj(x)"),
        ("nn.Conv2d(3, 8, 3)", "self.proj(x)"),
        ("nn.Dropout(0.1)", "self.proj(x)"),
        ("torch.nn.LayerNorm(8)", "self.proj(x)"),
    ],
)
def test_calls_of_nn_layers_are_tensors(layer, call):
    code = f"""\
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        self.proj = {layer}
    def forward(self, x):
        h = {call}
        use(h)
"""
    assert facts(code)["h"] is Kind.TENSOR


@pytest.mark.parametrize("layer", ["nn.LSTM(8, 8)", "nn.MultiheadAttention(8, 2)", "Block(8)", "nn.ModuleList()"])
def test_calls_of_tuple_returning_or_unknown_modules_are_not_tensors(layer):
    code = f"""\
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        self.proj = {layer}
    def forward(self, x):
        h = self.proj(x)
        use(h)
"""
    assert "h" not in facts(code)


def test_hazards_found_through_evidence():
    code = """\
import torch
def rope(x, grid_sizes):
    for i, (f, h, w) in enumerate(grid_sizes.tolist()):
        pass
def post(logits, boxes, t):
    scores, labels = logits.sigmoid().max(dim=-1)
    return boxes[scores > t]
def check(coords):
    sentinel = (coords == -1).all(dim=-1)
    if sentinel.any():
        pass
    n = int((~sentinel).sum())
def scatter(x, logits, e):
    labels = logits.argmax(dim=-1)
    x[labels == 2] += e
    x[labels == 3] = e
"""
    assert codes_at(code) == [
        (3, 35, "ZL302"), (7, 12, "ZL305"), (10, 8, "ZL303"), (12, 9, "ZL301"), (15, 5, "ZL305"),
    ]


def test_string_compared_parameter_is_no_tensor_branch():
    code = """\
import torch
def upsample(x: torch.Tensor, kernel: torch.Tensor):
    if kernel == "fir":
        return x
    if x.any():
        return x
"""
    assert codes_at(code) == [(5, 8, "ZL303")]


@pytest.mark.parametrize(
    "layer, arg, expected",
    [
        ("Block(8)", "x", Kind.TENSOR),
        ("layers.Mlp(8)", "x", Kind.TENSOR),
        ("Block(8)", "names", None),
        ("OrderedDict()", "x", None),
        ("BlockConfig()", "x", None),
    ],
)
def test_calls_of_other_module_attributes_on_tensors_are_tensors(layer, arg, expected):
    code = f"""\
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        self.proj = {layer}
    def forward(self, x: torch.Tensor, names):
        h = self.proj({arg})
        use(h)
"""
    assert facts(code).get("h") is expected


def test_imported_modules_are_not_tensors_from_their_keywords():
    found = facts("import torch\nimport numpy as np\ndef f(xs):\n    y = torch.cat(xs, dim=1)\n    use(torch, np)\n")
    assert "torch" not in found and "np" not in found


def test_numpy_files_read_shape_as_sized_but_not_as_a_tensor():
    code = "import numpy as np\nimport torch\ndef f(a):\n    n = len(a)\n    k = a.shape[0]\n"
    found = facts(code + "    use(a, n)\n")
    assert "a" not in found and found["n"] is Kind.SIZE
    code = "import torch\ndef f(a):\n    n = len(a)\n    k = a.shape[0]\n"
    assert facts(code + "    use(a)\n")["a"] is Kind.TENSOR


@pytest.mark.parametrize(
    "binding",
    [
        "m = slice(None) if s is None else (x == s)",
        "m = np.where(c, 1, 0)",
        "m = x.astype(np.float32)",
    ],
)
def test_values_that_may_be_python_or_numpy_are_not_tensors(binding):
    code = f"import numpy as np\nimport torch\ndef f(x, s, c):\n    {binding}\n    y = torch.nonzero(m)\n"
    assert kind_of(code, "m") is None


def test_a_module_result_unpacked_into_names_is_a_tuple_of_tensors():
    code = """\
import torch
import torch.nn as nn
class M(nn.Module):
    def __init__(self):
        self.rotary = Rotary(8)
    def forward(self, x: torch.Tensor):
        cos, sin = self.rotary(x)
        use(cos)
"""
    assert facts(code)["cos"] is Kind.TENSOR
    assert codes_at(code) == []  # not a tensor unpacked (ZL203)


def test_unpacking_a_literal_tuple_judges_each_element():
    code = """\
import torch
def f(xs):
    boxes = []
    boxes.append(xs)
    boxes, other = (torch.stack(boxes), [])
    use(other)
    mask = boxes >= 0
    y = boxes[mask]
"""
    assert facts(code + "    use(boxes)\n")["boxes"] is Kind.TENSOR
    assert facts(code)["other"] is Kind.CONTAINER
    assert [c for _, _, c in codes_at(code)] == ["ZL305"]


def test_a_function_that_handles_both_cases_keeps_the_tensor():
    code = """\
import torch
def f(shape: torch.Tensor):
    if isinstance(shape, tuple):
        return shape
    elif isinstance(shape, torch.Tensor):
        return int(shape[0])
"""
    assert [c for _, _, c in codes_at(code)] == ["ZL301"]


def test_isinstance_narrows_inside_its_branch():
    code = """\
import torch
def convert(value):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().sum(dim=0)
    if isinstance(value, (list, tuple)):
        return [convert(v) for v in value]
    if isinstance(value, Config):
        return [v for v in value]
    return value
def narrowed(x):
    if isinstance(x, torch.Tensor):
        return [r for r in x]
"""
    assert codes_at(code) == [(12, 28, "ZL202")]


def test_self_is_never_a_tensor_from_its_attributes():
    code = """\
import torch
class Pipe:
    def __call__(self, x):
        device = self.device
        for t in self.progress_bar(self.scheduler.timesteps):
            pass
"""
    assert codes_at(code) == []


ROTARY = """\
import torch
from torch import nn

class Rotary(nn.Module):
    def forward(self, x):
        return x.cos(), x.sin()

class Plain(nn.Module):
    def forward(self, x):
        if x is None:
            return x
        return x * 2

class Vision(nn.Module):
    def __init__(self):
        super().__init__()
        self.rotary = Rotary()
        self.plain = Plain()

    def forward(self, h: torch.Tensor):
        emb = self.rotary(h)
        out = self.plain(h)
        use(emb, out)
"""


def test_a_submodule_whose_forward_returns_a_tuple_gives_a_tuple_of_tensors():
    found = facts(ROTARY)
    # iterating the tuple walks two tensors, not a tensor's first dim
    assert found["emb"] is Kind.TENSORS and found["out"] is Kind.TENSOR
    iterate = ROTARY.replace(
        "        use(emb, out)\n", "        for e in emb:\n            h = h + e\n        return h\n"
    )
    assert [c for *_, c in codes_at(iterate) if c == "ZL202"] == []
    assert [c for *_, c in codes_at(iterate.replace("in emb", "in out")) if c == "ZL202"] == ["ZL202"]


def test_mask_indexing_is_no_evidence_in_a_file_that_imports_numpy():
    # numpy arrays are indexed by a comparison of themselves too
    numpy_file = "import numpy as np\nimport torch\ndef f(idx, n):\n    idx[idx > n] = n\n"
    torch_file = "import torch\ndef f(idx, n):\n    idx[idx > n] = n\n"
    assert kind_of(numpy_file, "idx") is None
    assert kind_of(torch_file, "idx") is Kind.TENSOR


def test_arithmetic_on_a_numpy_array_stays_an_array():
    code = (
        "import numpy as np\nimport torch\ndef f(n):\n"
        "    idx = np.array([1, 2])\n    idx = idx + np.arange(n)\n    y = idx.sum(dim=0)\n"
    )
    near_miss = "import torch\ndef f(n, x):\n    idx = torch.ones(2)\n    idx = idx + x\n"
    assert kind_of(code, "idx") is None
    assert kind_of(near_miss, "idx") is Kind.TENSOR


def test_plain_values_returned_by_a_submodule_forward_are_not_tensors():
    code = '''
    import torch
    from torch import nn


    class Rope(nn.Module):
        def forward(self, x, caps):
            lengths = [c + x.shape[1] for c in caps]
            freqs = torch.ones(x.shape[0])
            return x, freqs, lengths

    class Rope2(nn.Module):
        def forward(self, x, lengths):
            if x.ndim > 2:
                lengths = [1, 2]
            return x, lengths


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.rope = Rope()
            self.rope2 = Rope2()

        def forward(self, x: torch.Tensor, caps):
            h, freqs, seq_lengths = self.rope(x, caps)
            use_mask = len(set(seq_lengths)) > 1
            for f in freqs:
                x = x + f
            h2, lens = self.rope2(x, caps)
            for n in lens:
                x = x + n
            return x
    '''
    # `seq_lengths` is a list built in Rope.forward; `freqs` a tensor; `lens` may be the parameter
    assert codes_at(code) == [(28, 18, "ZL202"), (31, 18, "ZL202")]
