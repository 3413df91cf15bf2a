"""A branch that a module's default configuration never takes (an attribute set to a literal in
``__init__``, changed only by a user's toggle; or from an ``__init__`` parameter's literal default
that no constructor call of a whole-package run passes) is compiled only where a user opts in: its
findings are ``option`` and hidden by default. A method's own keyword argument, an attribute
written anywhere else, and the ``else`` of such a branch stay where they are. (Values that flow
across the run: test_default_values.py.)"""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

from inprocess import zlint

OPTION = "option"


def findings(src: str, scope: str = "all", others: dict[str, str] | None = None, named: str = ".") -> list[tuple]:
    """(code, line, scope, reason) of the findings in ``m.py`` with ``--scope scope``: a run over
    a folder holding it (and ``others``), or over the file ``named``."""
    with tempfile.TemporaryDirectory() as folder:
        for name, text in {"m.py": src, **(others or {})}.items():
            (Path(folder) / name).write_text(textwrap.dedent(text).lstrip("\n"))
        proc = zlint("--no-cache", "--format", "json", "--scope", scope, named, cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    rows = json.loads(proc.stdout)
    return [(d["code"], d["location"]["row"], d["scope"], d["scope_reason"]) for d in rows if d["filename"] == "m.py"]


def scopes(src: str, **options) -> list[tuple[str, int, str]]:
    return [(code, line, scope) for code, line, scope, _ in findings(src, **options)]


TILING = """
    import torch
    from torch import nn

    class VAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.use_tiling = False

        def enable_tiling(self):
            self.use_tiling = True

        def disable_tiling(self):
            self.use_tiling = False

        def forward(self, x):
            if self.use_tiling and x.shape[-1] > 64:
                return x.sum().item()
            return x
    """


def test_a_branch_only_a_toggle_turns_on_is_an_option_path():
    reason = "only when self.use_tiling is not its default (False)"
    assert findings(TILING) == [("ZL103", 16, OPTION, reason), ("ZL301", 17, OPTION, reason)]
    assert findings(TILING, scope="default") == []


def test_the_run_says_how_many_option_findings_it_hid_and_how_to_see_them(tmp_path):
    (tmp_path / "m.py").write_text(textwrap.dedent(TILING).lstrip("\n"))
    proc = zlint("--no-cache", "m.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.splitlines() == [
        "zlint: 2 findings hidden on paths only a non-default configuration of their module takes;"
        " --scope all shows them",
        "Found 0 findings (1 file checked; 2 hidden: 2 option-only).",
    ]
    assert zlint("--no-cache", "-q", "m.py", cwd=tmp_path).stderr == ""


def test_a_branch_on_an_init_parameter_with_a_literal_default():
    src = """
        import torch
        from torch import nn

        class FocalHead(nn.Module):
            def __init__(self, alpha=None, ignore_index=None, momentum=0.1, mode="mean"):
                super().__init__()
                self.ignore_index = ignore_index
                self.momentum = momentum
                self.mode = mode

            def forward(self, y_pred, y_true):
                if self.ignore_index is not None:
                    y_true = y_true[y_true != self.ignore_index]
                if self.momentum is None:
                    scale = y_pred.mean().item()
                elif self.mode == "weightedmean":
                    scale = y_pred.max().item()
                return y_pred.sum()
        """
    assert findings(src) == [
        ("ZL305", 13, OPTION, "only when self.ignore_index is not its default (None)"),
        ("ZL301", 15, OPTION, "only when self.momentum is not its default (0.1)"),
        ("ZL301", 17, OPTION, "only when self.mode is not its default ('mean')"),
    ]


def test_the_else_of_a_default_off_branch_runs_and_the_else_of_a_default_on_one_does_not():
    src = """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self, ignore_index=None):
                super().__init__()
                self.ignore_index = ignore_index

            def forward(self, x):
                if self.ignore_index is not None:
                    x = x[x != self.ignore_index]
                else:
                    n = x.sum().item()
                if self.ignore_index is None:
                    m = x.sum().item()
                else:
                    x = x[x != self.ignore_index]
                return x
        """
    assert scopes(src) == [
        ("ZL305", 11, OPTION), ("ZL301", 13, "compiled"), ("ZL301", 15, "compiled"), ("ZL305", 17, OPTION),
    ]


def test_operands_that_a_default_decides_before_them_are_never_evaluated():
    src = """
        import torch
        from torch import nn

        class Encoder(nn.Module):
            def __init__(self, layerdrop_prob=0.0):
                super().__init__()
                self.layerdrop_prob = layerdrop_prob

            def forward(self, x):
                keep = torch.rand(3)
                if self.layerdrop_prob > 0 and keep[0] > self.layerdrop_prob:
                    x = x * 2
                if (
                    self.layerdrop_prob > 0.5
                    and x.sum().item() > 0
                ):
                    x = x + 1
                return x
        """
    reason = "only when self.layerdrop_prob is not its default (0.0)"
    assert findings(src) == [("ZL303", 11, OPTION, reason), ("ZL301", 15, OPTION, reason)]


# near misses: the branch may run under the default configuration

KEPT = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self, flag, use_tiling=True, gated=False, count=None):
            super().__init__()
            self.use_tiling = use_tiling
            self.gated = gated
            if flag:
                self.half = False
            self.mixed = True if flag else False
            self.count = count
            self.shape_aware = False

        def forward(self, x, interpolate_pos_encoding=False):
            if interpolate_pos_encoding:
                x.sum().item()
            if self.use_tiling:
                x.sum().item()
            if self.gated:
                x.sum().item()
            if self.half:
                x.sum().item()
            if self.mixed:
                x.sum().item()
            if self.count is not None:
                x.sum().item()
            if self.shape_aware or x.size(0) > 1:
                x.sum().item()
            self.gated = x.shape[0] > 2
            return x

        def _build(self):
            self.count = 3
    """


def test_per_call_arguments_and_attributes_written_elsewhere_stay_in_default_scope():
    # a method's keyword argument; default True; written in forward; set under an `if` in
    # __init__; from a conditional expression; set by a private helper; `or` with an unknown
    lines = [line for code, line, scope in scopes(KEPT) if code == "ZL301" and scope == "compiled"]
    assert lines == [17, 19, 21, 23, 25, 27, 29]


def test_a_subclass_in_the_file_that_sets_the_attribute_or_the_parameter_keeps_the_branch():
    base = """
        import torch
        from torch import nn

        class Base(nn.Module):
            def __init__(self, ignore_index=None):
                super().__init__()
                self.use_tiling = False
                self.ignore_index = ignore_index

            def forward(self, x):
                if self.use_tiling:
                    x.sum().item()
                if self.ignore_index is not None:
                    x.sum().item()
                return x
        """
    assert [s for _, _, s in scopes(base)] == [OPTION, OPTION]
    writes = base + """
        class Tiled(Base):
            def __init__(self):
                super().__init__(ignore_index=255)
                self.use_tiling = True
        """
    assert [s for _, _, s in scopes(writes)] == ["compiled", "compiled"]
    positional = base + """
        class Masked(Base):
            def __init__(self):
                super().__init__(255)
        """
    assert [s for _, _, s in scopes(positional)] == [OPTION, "compiled"]


def test_a_toggle_the_class_calls_itself_is_no_option():
    in_forward = TILING.replace("return x\n", "self.enable_tiling()\n            return x\n", 1)
    assert [s for _, _, s in scopes(in_forward)] == ["compiled", "compiled"]
    enabled = "self.use_tiling = False\n            self.enable_tiling()\n"
    in_init = TILING.replace("self.use_tiling = False\n", enabled, 1)
    assert [s for _, _, s in scopes(in_init)] == ["compiled", "compiled"]


def test_never_compiled_code_stays_never_under_an_option():
    src = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.strict = False

            def forward(self, x):
                if self.strict:
                    raise ValueError(x.sum().item())
                return x
        """
    assert [s for _, _, s in scopes(src)] == ["never"]


LOSS = """
    import torch
    from torch import nn

    class FocalHead(nn.Module):
        def __init__(self, ignore_index=None):
            super().__init__()
            self.ignore_index = ignore_index
            self.strict = False

        def forward(self, y):
            if self.ignore_index is not None:
                y.sum().item()
            if self.strict:
                y.sum().item()
            return y
    """


def test_a_parameter_default_holds_only_where_every_constructor_is_in_sight():
    assert [s for _, _, s in scopes(LOSS)] == [OPTION, OPTION]
    # pre-commit names files: a constructor elsewhere may pass the parameter; a literal holds
    assert [s for _, _, s in scopes(LOSS, named="m.py")] == ["compiled", OPTION]
    builds = {"build.py": "from m import FocalHead\n\nloss = FocalHead(ignore_index=255)\n"}
    assert [s for _, _, s in scopes(LOSS, others=builds)] == ["compiled", OPTION]
    positional = {"build.py": "from m import FocalHead\n\nloss = FocalHead(255)\n"}
    assert [s for _, _, s in scopes(LOSS, others=positional)] == ["compiled", OPTION]
    other = {"build.py": "from m import FocalHead\n\nloss = FocalHead()\n"}
    assert [s for _, _, s in scopes(LOSS, others=other)] == [OPTION, OPTION]
    # the default passed again as a literal changes nothing; another literal or a name does
    same = {"build.py": "from m import FocalHead\n\nloss = FocalHead(ignore_index=None)\n"}
    assert [s for _, _, s in scopes(LOSS, others=same)] == [OPTION, OPTION]
    named = {"build.py": "from m import FocalHead\n\nloss = FocalHead(ignore_index=index)\n"}
    assert [s for _, _, s in scopes(LOSS, others=named)] == ["compiled", OPTION]


def test_a_decorated_init_may_get_its_arguments_from_a_saved_configuration():
    decorated = LOSS.replace("    def __init__", "    @register_to_config\n        def __init__", 1)
    assert "@register_to_config" in decorated
    assert [s for _, _, s in scopes(decorated)] == ["compiled", OPTION]


def test_a_test_of_one_parameter_with_a_literal_default_is_a_known_default():
    src = """
        import torch
        from torch import nn

        class Wrapper(nn.Module):
            def __init__(self, sigreg_loss_weight=0.0, dim=8, scale=None):
                super().__init__()
                self.has_sigreg = sigreg_loss_weight > 0.0
                self.wide = dim > 4 and scale is None
                self.scaled = scale is not None and scale > dim

            def forward(self, x):
                if self.has_sigreg:
                    x = x[x > 0]
                if self.wide:
                    x = x.sum().item()
                if self.scaled:
                    return x[x > 0]
                return x
        """
    # `self.wide` is True by its defaults (the branch runs); `self.scaled` False: `scale is not
    # None` decides it before `scale > dim`
    assert findings(src) == [
        ("ZL305", 13, OPTION, "only when self.has_sigreg is not its default (False)"),
        ("ZL301", 15, "compiled", "forward of Wrapper"),
        ("ZL305", 17, OPTION, "only when self.scaled is not its default (False)"),
    ]


# helpers that only default-off paths call: option too

TILED = """
    import torch
    from torch import nn

    def _ramp(b, extent):
        for y in range(b.shape[2]):
            b = b * (y / extent)
        return b

    class VAE(nn.Module):
        def __init__(self, tile_size=64):
            super().__init__()
            self.use_tiling = False
            self.tile_size = tile_size

        def enable_tiling(self):
            self.use_tiling = True

        def blend_v(self, a, b, extent):
            for y in range(a.shape[2]):
                b[:, :, y] = a[:, :, y] * (1 - y / extent)
            return _ramp(b, extent)

        def tiled_decode(self, z):
            rows = [self.blend_v(z, z, 8)]
            return torch.cat(rows)

        def tiled_encode(self, x):
            return self.blend_v(x, x, 8)

        def decode(self, z):
            if self.use_tiling and z.shape[-1] > self.tile_size:
                return self.tiled_decode(z)
            return z

        def forward(self, x):
            return self.decode(x)
    """
TILING_REASON = "only when self.use_tiling is not its default (False)"


def test_a_helper_only_a_default_off_path_calls_is_on_that_path_too():
    # decode calls tiled_decode only when tiling is on; blend_v and _ramp only from there (and
    # from tiled_encode, which no code calls: a user calls it eagerly); so their loops
    # compile only where a user turns tiling on
    via = f"called {TILING_REASON}, from "
    assert findings(TILED) == [
        ("ZL201", 5, OPTION, via + "VAE.blend_v"),
        ("ZL201", 19, OPTION, via + "VAE.tiled_decode"),
        ("ZL103", 31, OPTION, TILING_REASON),
    ]
    assert findings(TILED, scope="default") == []
    # the same helpers called on the default path are compiled
    always = TILED.replace("if self.use_tiling and z.shape[-1] > self.tile_size:", "if z.shape[-1] > self.tile_size:")
    assert scopes(always, scope="default") == [
        ("ZL201", 5, "compiled"), ("ZL201", 19, "compiled"), ("ZL103", 31, "compiled"),
    ]


def test_the_run_counts_the_helpers_findings_among_those_it_hid(tmp_path):
    (tmp_path / "m.py").write_text(textwrap.dedent(TILED).lstrip("\n"))
    proc = zlint("--no-cache", ".", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "")
    assert proc.stderr.splitlines()[0].startswith("zlint: 3 findings hidden on paths only a non-default")


def test_a_helper_with_a_call_on_the_default_path_stays_compiled():
    # decode also calls blend_v after the branch: the default path runs it
    also = TILED.replace("            return z\n", "            return self.blend_v(z, z, 2)\n", 1)
    assert scopes(also) == [("ZL201", 5, "compiled"), ("ZL201", 19, "compiled"), ("ZL103", 31, OPTION)]
    # forward calls tiled_decode too: tiled_decode, and blend_v with it, are compiled
    forward = TILED.replace("return self.decode(x)", "return self.decode(x) + self.tiled_decode(x)")
    assert scopes(forward) == [("ZL201", 5, "compiled"), ("ZL201", 19, "compiled"), ("ZL103", 31, OPTION)]


def test_through_helpers_and_nested_functions_only_the_option_path_calls():
    # a nested function that only the default-off path calls: what it calls is option too
    nested = TILED.replace(
        "                return self.tiled_decode(z)\n",
        "                def run():\n                    return self.tiled_decode(z)\n\n                return run()\n",
    )
    assert [s for _, _, s in scopes(nested)] == [OPTION, OPTION, OPTION]
    # a helper of a default-off operand (`self.use_tiling and self.tiles_fit(z)`)
    operand = TILED.replace("z.shape[-1] > self.tile_size:", "self.tiles_fit(z):").replace(
        "    def decode", "    def tiles_fit(self, z):\n            return z.sum().item() > 0\n\n        def decode")
    assert findings(operand)[1:] == [
        ("ZL201", 19, OPTION, f"called {TILING_REASON}, from VAE.tiled_decode"),
        ("ZL301", 31, OPTION, f"called {TILING_REASON}, from VAE.decode"),
    ]


def test_a_constructor_that_passes_the_option_keeps_its_helpers_compiled():
    from_param = TILED.replace("tile_size=64):", "tile_size=64, use_tiling=False):").replace(
        "self.use_tiling = False\n", "self.use_tiling = use_tiling\n", 1)
    assert [s for _, _, s in scopes(from_param)] == [OPTION, OPTION, OPTION]
    builds = {"build.py": "from m import VAE\n\nvae = VAE(use_tiling=True)\n"}
    assert [s for _, _, s in scopes(from_param, others=builds)] == ["compiled", "compiled", "compiled"]
    # a run over the file alone cannot see every constructor: the parameter's default may not hold
    assert [s for _, _, s in scopes(from_param, named="m.py")] == ["compiled", "compiled", "compiled"]


def test_helpers_with_no_caller_or_one_the_option_cannot_decide_stay_as_they_were():
    # nobody calls tiled_encode: it stays as it was (never compiled: its callers are users,
    # running it eagerly), and keeps the same finding where it calls nothing on the option
    encode = TILED.replace("return self.blend_v(x, x, 8)", "return [x[:, :, i] for i in range(x.shape[2])]")
    assert ("ZL201", 28, "never") in scopes(encode)
    # a run over the file alone: a user may compile tiled_encode, which calls blend_v on its
    # default path; no compiled code does (decode only under the option): unknown, and shown
    assert findings(TILED, scope="default", named="m.py") == [
        ("ZL201", 5, "unknown", "no compiled caller found"), ("ZL201", 19, "unknown", "no compiled caller found"),
    ]
    # a method taken as a value runs wherever the value is called
    stored = TILED.replace(
        "self.tile_size = tile_size\n", "self.tile_size = tile_size\n            self.fn = self.tiled_decode\n", 1)
    assert [s for _, _, s in scopes(stored)][:2] == ["compiled", "compiled"]


def test_what_never_compiles_or_is_compiled_on_its_own_keeps_its_scope():
    disabled = TILED.replace("    def blend_v", "    @torch.compiler.disable\n        def blend_v")
    assert [s for _, _, s in scopes(disabled)] == ["never", "never", OPTION]
    compiled = TILED.replace("    def blend_v", "    @torch.compile\n        def blend_v")
    assert [(s, r) for _, _, s, r in findings(compiled)][1:] == [
        ("compiled", "decorated with torch.compile"), (OPTION, TILING_REASON)]


def test_the_index_store_the_server_and_a_lone_file_place_the_helpers_alike(tmp_path):
    import ast

    from zlint.frontends.server.workspace import Workspace
    from zlint.scope.classify import scope_for_file
    from zlint.scope.index import ProjectIndex

    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(TILED).lstrip("\n"))
    fresh = ProjectIndex.build([str(path)]).scope_of(str(path))
    assert fresh.classify(24) == (OPTION, f"called {TILING_REASON}, from VAE.decode")  # tiled_decode
    cache = tmp_path / "cache" / "project.json"
    ProjectIndex.build([str(path)], cache)
    cache.with_name(f"last-run-{cache.name}").unlink()  # the stored summaries, not the stored answer
    assert ProjectIndex.build([str(path)], cache).scope_of(str(path)) == fresh
    assert scope_for_file(str(path), ast.parse(path.read_text())) == fresh
    workspace = Workspace([tmp_path])
    workspace.index_workspace()
    assert workspace.scope_of(str(path)) == fresh
