"""Compiled scope across the files of a run: compiled / never / unknown, each with its reason."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest

from inprocess import zlint
from zlint.scope.classify import classify
from zlint.scope.file_summary import summarize


def scopes(files: dict[str, str]) -> dict[str, dict[int, tuple[str, str]]]:
    """{path: {line: (scope, reason)}} for the lines marked ``# <- name`` in each file."""
    texts = {p: textwrap.dedent(src) for p, src in files.items()}
    summaries = [summarize(p, ast.parse(text), text) for p, text in texts.items()]
    found = classify(summaries)
    out: dict[str, dict[int, tuple[str, str]]] = {}
    for path, src in files.items():
        lines = textwrap.dedent(src).splitlines()
        out[path] = {i: found[path].classify(i) for i, line in enumerate(lines, 1) if "# <-" in line}
    return out


def one(src: str) -> list[tuple[str, str]]:
    return list(scopes({"m.py": src})["m.py"].values())


def test_forward_of_a_module_and_what_it_calls_are_compiled():
    assert one(
        """
        import torch
        from torch import nn

        def helper(x):
            return x  # <-

        class Block(nn.Module):
            def forward(self, x):
                return self.mix(x)  # <-

            def mix(self, x):
                return helper(x)  # <-

            def unused(self, x):
                return x  # <-
        """
    ) == [
        ("compiled", "called from Block.mix"),
        ("compiled", "forward of Block"),
        ("compiled", "called from Block.forward"),
        ("unknown", "no compiled caller found"),
    ]


def test_module_class_through_a_base_of_the_run_and_submodule_forward():
    assert one(
        """
        import torch.nn as nn

        class Base(nn.Module):
            pass

        class Inner(Base):
            def forward(self, x):
                return x  # <-

        class NotAModule:
            def forward(self, x):
                return x  # <-

        class Outer(Base):
            def __init__(self):
                super().__init__()  # <-
                self.inner = Inner()

            def forward(self, x):
                return self.inner(x)  # <-
        """
    ) == [
        ("compiled", "forward of Inner"),
        ("unknown", "no compiled caller found"),  # a plain class with a forward is not a module
        ("never", "__init__"),
        ("compiled", "forward of Outer"),
    ]


def test_compiled_by_torch_compile_call_and_decorator():
    assert one(
        """
        import torch

        def step(x):
            return x  # <-

        @torch.compile(dynamic=True)
        def fused(x):
            return x  # <-

        def other(x):
            return x  # <-

        compiled = torch.compile(step)
        """
    ) == [
        ("compiled", "passed to torch.compile"),
        ("compiled", "decorated with torch.compile"),
        ("unknown", "no compiled caller found"),
    ]


def test_never_compiled_code_says_why():
    assert one(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def _init_weights(self, m):
                pass  # <-

            def init_weights_vit(self, m):
                pass  # <-

            def reset_parameters(self):
                pass  # <-

            def _load_from_state_dict(self, *args):
                pass  # <-

            @torch.compiler.disable
            def log_stats(self, x):
                pass  # <-

            def forward(self, x):
                if not torch.compiler.is_compiling():
                    print(x.shape)  # <-
                if torch.jit.is_scripting():
                    pass  # <-
                else:
                    y = x  # <-
                return self.log_stats(x)

        def checkpoint_filter_fn(state_dict, model):
            return resize(state_dict)  # <-

        def resize(state_dict):
            return state_dict  # <-

        class ImageProcessor:
            def __call__(self, images):
                return images  # <-

        x = 1  # <-
        """
    ) == [
        ("never", "weight init"),
        ("never", "weight init"),
        ("never", "weight init"),
        ("never", "state-dict load/save"),
        ("never", "@torch.compiler.disable"),
        ("never", "branch not taken under torch.compile"),
        ("never", "branch not taken under torch.compile"),
        ("compiled", "forward of Net"),
        ("never", "checkpoint conversion"),
        ("never", "called only from checkpoint_filter_fn"),
        ("never", "input/output processing (ImageProcessor)"),
        ("never", "module level (runs at import)"),
    ]


def test_near_misses_stay_compiled_or_unknown():
    assert one(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                if torch.compiler.is_compiling():
                    y = x  # <-
                if not torch.jit.is_scripting():
                    y = x  # <-
                return self.initial(x) + self.init_hook(x)

            def initial(self, x):  # "init" inside a word is not weight init
                return x  # <-

            def init_hook(self, x):  # nor is an init of something else
                return x  # <-

        def helper(x):
            return x  # <-

        def load(x):
            return helper(x)  # <-
        """
    ) == [
        ("compiled", "forward of Net"),
        ("compiled", "forward of Net"),
        ("compiled", "called from Net.forward"),
        ("compiled", "called from Net.forward"),
        ("unknown", "no compiled caller found"),  # called from unknown code: not only from never
        ("unknown", "no compiled caller found"),
    ]


def test_imports_resolve_to_files_of_the_run():
    found = scopes(
        {
            "pkg/layers/helpers.py": """
                def to_2tuple(x):
                    return x  # <-

                def pad(x):
                    return x  # <-
                """,
            "pkg/layers/__init__.py": """
                from .helpers import pad
                """,
            "pkg/models/vit.py": """
                from torch import nn
                from ..layers.helpers import to_2tuple
                from pkg.layers import pad

                class ViT(nn.Module):
                    def forward(self, x):
                        return pad(to_2tuple(x))
                """,
        }
    )
    assert list(found["pkg/layers/helpers.py"].values()) == [
        ("compiled", "called from ViT.forward"),
        ("compiled", "called from ViT.forward"),
    ]


def test_single_graph_modes_are_seen_in_the_file_and_the_project():
    files = {
        "train.py": "import torch\ntorch.fx.experimental._config.backed_size_oblivious = True\n",
        "model.py": "import torch\n",
        "export.py": "import torch\nd = torch.export.Dim.DYNAMIC\n",
    }
    found = classify([summarize(p, ast.parse(s)) for p, s in files.items()])
    assert (found["train.py"].size_oblivious_here, found["train.py"].single_graph_here) == (True, True)
    assert (found["model.py"].size_oblivious_here, found["model.py"].single_graph_here) == (False, False)
    assert (found["model.py"].size_oblivious_project, found["model.py"].single_graph_project) == (True, True)
    assert (found["export.py"].size_oblivious_here, found["export.py"].single_graph_here) == (False, True)
    alone = classify([summarize("m.py", ast.parse("import torch\nx = torch.ones(2)\n"))])["m.py"]
    assert not alone.single_graph_project and not alone.size_oblivious_project
    patched = "from torch.fx.experimental import _config\nwith _config.patch(backed_size_oblivious=True):\n    pass\n"
    assert classify([summarize("p.py", ast.parse(patched))])["p.py"].size_oblivious_here
    off = "from torch.fx.experimental import _config\nwith _config.patch(backed_size_oblivious=False):\n    pass\n"
    assert not classify([summarize("p.py", ast.parse(off))])["p.py"].size_oblivious_here
    unbacked = "import torch\ntorch._dynamo.decorators.mark_unbacked(x, 0)\n"
    sg = classify([summarize("u.py", ast.parse(unbacked))])["u.py"]
    assert sg.single_graph_here and not sg.size_oblivious_here


# -- end to end ---------------------------------------------------------------------------------

HELPER = """\
import torch


def shrink(x):
    for i in range(x.shape[0]):
        x = x * 2
    return x
"""
LOADER = """\
from helpers import shrink


def checkpoint_filter_fn(state_dict):
    return shrink(state_dict)
"""
MODEL = """\
from torch import nn
from helpers import shrink


class Net(nn.Module):
    def forward(self, x):
        return shrink(x)
"""


def _findings(cwd: Path, *args: str) -> list[tuple[str, int, str, str, str]]:
    proc = zlint("--format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return [
        (f["filename"], f["location"]["row"], f["code"], f["scope"], f["scope_reason"])
        for f in json.loads(proc.stdout)
    ]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_what_another_file_calls_decides_the_scope_and_the_cache_follows(tmp_path, jobs):
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "loader.py").write_text(LOADER)
    for i in range(4):  # enough files for --jobs 2 to start workers
        (tmp_path / f"pad{i}.py").write_text("import torch\n")
    run = ("--jobs", jobs, "--cache-dir", str(tmp_path / "cache"), ".")
    # only a checkpoint filter calls the helper: never compiled, hidden unless --scope all
    assert _findings(tmp_path, *run) == []
    assert _findings(tmp_path, "--scope", "all", *run) == [
        ("helpers.py", 5, "ZL201", "never", "called only from checkpoint_filter_fn")
    ]
    # a model's forward now calls it too; helpers.py is unchanged, its cached result must not be used
    (tmp_path / "model.py").write_text(MODEL)
    assert _findings(tmp_path, *run) == [("helpers.py", 5, "ZL201", "compiled", "called from Net.forward")]
    assert _findings(tmp_path, "--compiled-only", *run) == [
        ("helpers.py", 5, "ZL201", "compiled", "called from Net.forward")
    ]


def test_scope_setting_in_pyproject(tmp_path):
    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "loader.py").write_text(LOADER)
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nscope = "all"\n')
    assert [f[3] for f in _findings(tmp_path, "--no-cache", ".")] == ["never"]
    assert _findings(tmp_path, "--no-cache", "--scope", "default", ".") == []
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nscope = "everything"\n')
    proc = zlint("--no-cache", ".", cwd=tmp_path)
    assert proc.returncode == 2
    assert "scope must be 'default' or 'all'" in proc.stderr


def test_library_bases_outside_the_run_and_module_processors():
    assert one(
        """
        from transformers.modeling_utils import PreTrainedModel
        from torch import nn

        class MyPreTrainedModel(PreTrainedModel):
            def _init_weights(self, module):
                pass

        class MyModel(MyPreTrainedModel):  # a module by convention: it defines forward
            def forward(self, x):
                return x  # <-

        class AudioProcessor(nn.Module):  # a module named like a processor runs compiled
            def forward(self, x):
                return x  # <-

        class LogitsProcessorPil:
            def __call__(self, scores):
                return scores  # <-

        class Plain(object):
            def forward(self, x):
                return x  # <-
        """
    ) == [
        ("compiled", "forward of MyModel"),
        ("compiled", "forward of AudioProcessor"),
        ("never", "input/output processing (LogitsProcessorPil)"),
        ("unknown", "no compiled caller found"),
    ]


def test_the_index_cache_survives_edits_and_corruption(tmp_path):
    from zlint.scope.index import ProjectIndex

    (tmp_path / "helpers.py").write_text(HELPER)
    (tmp_path / "loader.py").write_text(LOADER)
    paths = [str(tmp_path / "helpers.py"), str(tmp_path / "loader.py"), str(tmp_path / "model.py")]
    cache = tmp_path / "cache" / "project.json"
    fresh = ProjectIndex.build(paths[:2]).scope_of(paths[0])
    assert ProjectIndex.build(paths[:2], cache).scope_of(paths[0]) == fresh
    assert ProjectIndex.build(paths[:2], cache).scope_of(paths[0]) == fresh  # from the stored answer
    assert fresh.classify(5) == ("never", "called only from checkpoint_filter_fn")
    (tmp_path / "model.py").write_text(MODEL)  # a new file: the stored answer no longer applies
    assert ProjectIndex.build(paths, cache).scope_of(paths[0]).classify(5) == ("compiled", "called from Net.forward")
    cache.write_text('{"answer": {"run": 1}, "x": [')
    assert ProjectIndex.build(paths, cache).scope_of(paths[0]).classify(5) == ("compiled", "called from Net.forward")
    cache.write_text('{"answer": 3, "deadbeef": {"functions": 1}}')
    assert ProjectIndex.build(paths, cache).scope_of(paths[0]).classify(5) == ("compiled", "called from Net.forward")


def test_a_name_defined_twice_runs_where_its_last_definition_runs():
    assert one(
        """
        import torch
        from torch import nn

        if hasattr(torch, "compiler"):
            def helper(x):
                return x  # <-
        else:
            def helper(x):
                return x  # <-

        def stats(x):
            return x  # <-

        def stats(x):
            return x  # <-

        class Net(nn.Module):
            def forward(self, x):
                return helper(x)
        """
    ) == [
        ("compiled", "called from Net.forward"),
        ("compiled", "called from Net.forward"),
        ("unknown", "no compiled caller found"),
        ("unknown", "no compiled caller found"),
    ]


def test_disable_decorators_under_other_names():
    assert one(
        """
        import torch
        import torch._dynamo as dynamo
        from torch.compiler import disable

        @dynamo.disable
        def a(x):
            return x  # <-

        @disable(recursive=False)
        def b(x):
            return x  # <-

        @torch.jit.ignore
        def c(x):
            return x  # <-
        """
    ) == [
        ("never", "@torch._dynamo.disable"),
        ("never", "@torch.compiler.disable"),
        ("unknown", "no compiled caller found"),
    ]


def test_disable_through_a_module_level_alias_of_the_run():
    # timm: `disable_compiler = getattr(getattr(torch, "compiler", None), "disable", None) or
    # nullwrap` in one file, re-exported, then `@disable_compiler` on a method forward calls
    found = scopes(
        {
            "pkg/layers/typing.py": """
                import torch
                from torch import jit

                def nullwrap(fn):
                    return fn

                disable_compiler = getattr(getattr(torch, "compiler", None), "disable", None) or nullwrap
                not_an_alias = getattr(torch, "compiler" + "", None)
                ignore = jit.ignore
                wrapped = nullwrap(torch.compiler.disable)
                """,
            "pkg/layers/__init__.py": """
                from .typing import disable_compiler, ignore, wrapped
                """,
            "pkg/models/m.py": """
                from torch import nn
                from pkg.layers import disable_compiler, ignore, wrapped
                from ..layers.typing import disable_compiler as dc

                class M(nn.Module):
                    def forward(self, x):
                        return self.a(x) + self.b(x) + self.c(x) + self.d(x)

                    @disable_compiler
                    def a(self, x):
                        return x  # <-

                    @dc
                    def b(self, x):
                        return x  # <-

                    @ignore
                    def c(self, x):
                        return x  # <-

                    @wrapped
                    def d(self, x):
                        return x  # <-
                """,
        }
    )
    assert list(found["pkg/models/m.py"].values()) == [
        ("never", "@disable_compiler (an alias of torch.compiler.disable)"),
        ("never", "@disable_compiler (an alias of torch.compiler.disable)"),
        ("compiled", "called from M.forward"),  # torch.jit.ignore says nothing to dynamo
        ("compiled", "called from M.forward"),  # a call's result is no alias
    ]


def test_a_template_that_a_file_of_the_run_was_generated_from_is_never_compiled():
    # transformers' modular_*.py: the modeling_*.py generated from it is what gets imported
    header = "# " + "=" * 20 + "\n#  This file was automatically generated from src/pkg/x/modular_x.py.\n"
    model = textwrap.dedent(
        """
        from torch import nn

        class XModel(nn.Module):
            def forward(self, x):
                return x  # <-
        """
    )
    found = scopes(
        {
            "pkg/x/modular_x.py": model,
            "pkg/x/modeling_x.py": header + model,
            # near misses: the header names a file of another directory, or a file not in the
            # run; the words stand after code, not in the leading comments
            "pkg/y/modular_y.py": model,
            "pkg/y/modeling_y.py": "# generated from src/pkg/x/modular_y2.py\n" + model,
            "pkg/z/modular_z.py": model,
            "pkg/z/modeling_z.py": "import torch\n# automatically generated from modular_z.py\n" + model,
            "pkg/w/modular_w.py": model,
            "pkg/v/modeling_w.py": "# generated from src/pkg/w/modular_w.py\n" + model,
        }
    )
    template = ("never", "template of the generated modeling_x.py: never imported (its code runs there)")
    assert list(found["pkg/x/modular_x.py"].values()) == [template]
    assert list(found["pkg/x/modeling_x.py"].values()) == [("compiled", "forward of XModel")]
    for path in ("pkg/y/modular_y.py", "pkg/z/modular_z.py", "pkg/w/modular_w.py"):
        assert list(found[path].values()) == [("compiled", "forward of XModel")], path


def test_a_method_called_on_an_object_of_unknown_class_resolves_by_its_unique_name():
    # the head is registered by a framework (`register_modules`), so its class is not known at the
    # call; only one class of the run defines `predict_frames`, so that is what runs
    found = scopes(
        {
            "head.py": """
            from torch import nn

            class DurationHead(nn.Module):
                def forward(self, x):
                    return x.mean()

                def predict_frames(self, x):
                    return int(self(x).item())  # <-

                def decode(self, x):
                    return x  # <-

                def __call__(self, x):
                    return x  # <-
            """,
            "other.py": """
            from torch import nn

            class Vae(nn.Module):
                def decode(self, x):
                    return x  # <-

                def forward(self, x):
                    return x
            """,
            "pipeline.py": """
            class VideoPipeline:
                def __call__(self, x):
                    n = self.duration_head.predict_frames(x)
                    y = self.duration_head.decode(x)
                    return self.duration_head.__call__(x)
            """,
        }
    )
    assert list(found["head.py"].values()) == [
        ("never", "called only from VideoPipeline.__call__"),
        ("unknown", "no compiled caller found"),  # `decode`: two classes define it, either may run
        ("unknown", "no compiled caller found"),  # dunders never resolve by name
    ]
    assert list(found["other.py"].values()) == [("unknown", "no compiled caller found")]


def test_a_unique_method_name_called_from_compiled_code_is_compiled():
    assert one(
        """
        from torch import nn

        class Tower(nn.Module):
            def forward(self, x):
                return self.backbone.embed_query(x)

        class Backbone(nn.Module):
            def embed_query(self, x):
                return x  # <-

            def forward(self, x):
                return x

        class Metrics:
            def update(self, x):
                return self.reduce_rows(x)  # <-

            def reduce_rows(self, x):
                return x  # <-

        def local_object(model, x):
            return model.x.view(x)  # <- no class of the run defines `view`
        """
    ) == [
        ("compiled", "called from Tower.forward"),
        ("never", "evaluation metrics (host-side, on the model's outputs)"),
        ("never", "evaluation metrics (host-side, on the model's outputs)"),
        ("unknown", "no compiled caller found"),
    ]


def test_an_operand_dynamo_skips_is_never_compiled_on_the_line_that_decides_it(tmp_path):
    # `from .utils import is_tracing` in a library's package: resolved to the library's absolute
    # name, whose value under dynamo is known even when the run does not hold its definition
    package = tmp_path / "transformers"
    (package / "utils").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "utils" / "__init__.py").write_text("")
    (package / "masks.py").write_text(
        textwrap.dedent(
            """
            import torch
            from torch import nn
            from .utils.import_utils import is_tracing, is_other

            class Net(nn.Module):
                def forward(self, x):
                    mask = torch.diff(x, dim=-1).cumsum(-1)
                    if not is_tracing(mask) and (mask[:, -1] == 0).all():
                        return None
                    if (mask[:, 0] == 0).all() and not is_tracing(mask):
                        return None
                    if not is_other(mask) and (mask[:, 1] == 0).all():
                        return None
                    return mask
            """
        )
    )
    found = _findings(tmp_path, "--no-cache", "--scope", "all", "transformers/masks.py")
    assert found == [
        ("transformers/masks.py", 9, "ZL303", "never", "not evaluated under torch.compile"),
        ("transformers/masks.py", 11, "ZL303", "compiled", "forward of Net"),  # decided after it ran
        ("transformers/masks.py", 13, "ZL303", "compiled", "forward of Net"),  # value unknown
    ]
    assert _findings(tmp_path, "--no-cache", "transformers/masks.py") == found[1:]
    # outside a package the relative import names no library: nothing is known
    (tmp_path / "loose.py").write_text((package / "masks.py").read_text())
    assert [f[3] for f in _findings(tmp_path, "--no-cache", "loose.py")] == ["compiled"] * 3


def test_file_io_and_parameter_surgery_run_at_setup_unless_compiled_code_calls_them():
    assert one(
        """
        import json
        import torch
        import numpy as np
        from torch import nn

        def load_class_weights(path):
            with open(path) as f:
                return torch.as_tensor(json.load(f))  # <-

        def load_table(path):
            return np.load(path)  # <-

        def merge_pre_bn(module, bn):
            module.weight.data = module.weight * bn.weight  # <-

        def replace_weight(layer, w):
            layer.weight = nn.Parameter(w)  # <-

        def dump_stats(x):
            torch.save(x, "stats.pt")  # <-

        def scale(x, table):
            return x * table.data  # <- reads `.data`: no surgery

        class Net(nn.Module):
            def forward(self, x):
                dump_stats(x)
                return self.load(x)

            def load(self, x):  # a method named `load` does no file I/O
                return x  # <-
        """
    ) == [
        ("never", "reads or writes files (setup or export)"),
        ("never", "reads or writes files (setup or export)"),
        ("never", "changes the model's parameters or buffers (setup)"),
        ("never", "changes the model's parameters or buffers (setup)"),
        ("compiled", "called from Net.forward"),  # reached from a forward: compiled wins
        ("unknown", "no compiled caller found"),
        ("compiled", "called from Net.forward"),
    ]


def test_self_calls_reach_the_overrides_of_subclasses():
    found = scopes(
        {
            "generation.py": """
            class GenerationMixin:
                def _expand_inputs_for_generation(self, **kwargs):
                    return self._expand_outputs(**kwargs)

                def _expand_outputs(self, **kwargs):
                    return kwargs  # <-
            """,
            "model.py": """
            from torch import nn
            from generation import GenerationMixin

            class Block(nn.Module):
                def forward(self, x):
                    return self.mix(x)

                def mix(self, x):
                    return x  # <-

            class Fancy(Block):
                def mix(self, x):
                    return x * 2  # <-

            class Deeper(Fancy):
                def mix(self, x):
                    return x * 3  # <-

            class Sibling(nn.Module):
                def mix(self, x):
                    return x  # <- no base of it calls mix

            class Captioner(nn.Module, GenerationMixin):
                def forward(self, x):
                    return x

                def _expand_outputs(self, **kwargs):
                    return kwargs  # <- a hook of the generation loop
            """,
        }
    )
    assert list(found["generation.py"].values()) == [("never", "generation loop (host-side)")]
    assert list(found["model.py"].values()) == [
        ("compiled", "called from Block.forward"),
        ("compiled", "called from Block.forward"),
        ("compiled", "called from Block.forward"),
        ("unknown", "no compiled caller found"),
        ("never", "called only from GenerationMixin._expand_inputs_for_generation"),
    ]


def test_classify_leaves_the_summaries_it_is_given_as_they_were():
    source = textwrap.dedent("""
        import torch
        from torch import nn

        def traced_only(x):
            return x

        class Net(nn.Module):
            def forward(self, x):
                if torch.jit.is_tracing():
                    return traced_only(x)
                return x
        """)
    summary = summarize("m.py", ast.parse(source))
    before = {q: (set(f.calls), set(f.branch_calls)) for q, f in summary.functions.items()}
    first = classify([summary])["m.py"]
    assert {q: (f.calls, f.branch_calls) for q, f in summary.functions.items()} == before
    assert classify([summary])["m.py"] == first


def test_functions_in_a_dispatch_table_run_where_a_reader_of_the_table_runs():
    # transformers' attention: `ALL_ATTENTION_FUNCTIONS.get_interface(impl, eager)` on an instance
    # of a class whose body holds the table; the workloads' oracle saw dynamo trace (and break in)
    # sdpa_attention_forward that way, which zlint took for code nothing compiled calls
    found = scopes({
        "pkg/attn.py": """
            def sdpa_forward(module, q):
                return q  # <- sdpa
            def flash_forward(module, q):
                return q  # <- flash
            def paged_forward(module, q):
                return q  # <- paged
            def unlisted(module, q):
                return q  # <- unlisted
            def gelu(x):
                return x  # <- gelu
            class Interface:
                _mapping = {"sdpa": sdpa_forward}
                def get_interface(self, name, default):
                    return self._mapping.get(name, default)
            ALL_FUNCTIONS = Interface()
            OPS = {"flash": flash_forward}
            NAMES = ("sdpa", "flash")
            def act(x, kind):
                table = {"gelu": gelu}
                return table[kind](x)
        """,
        "pkg/model.py": """
            from torch import nn
            from .attn import ALL_FUNCTIONS, OPS, act
            class Attention(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.kernels = [paged_forward]
                def forward(self, q, impl):
                    fn = ALL_FUNCTIONS.get_interface(impl, None)
                    q = OPS[impl](self, fn(self, q))
                    q = self.kernels[0](self, q)
                    return act(q, "gelu")
            from .attn import paged_forward
        """,
    })["pkg/attn.py"]
    assert found == {
        3: ("compiled", "called from Attention.forward"),
        5: ("compiled", "called from Attention.forward"),
        7: ("compiled", "called from Attention.forward"),
        9: ("unknown", "no compiled caller found"),
        11: ("compiled", "called from act"),
    }


def test_a_table_no_compiled_code_reads_reaches_nothing():
    found = scopes({
        "m.py": """
            from torch import nn
            def relu_forward(x):
                return x  # <- relu
            ACTIVATIONS = {"relu": relu_forward}
            NAMES = list(ACTIVATIONS)
            def build(name):
                return ACTIVATIONS[name]  # <- build
            class Block(nn.Module):
                def forward(self, x):
                    return x.relu()  # <- forward
        """,
    })["m.py"]
    assert found[4] == ("unknown", "no compiled caller found")
    assert found[8][0] == "unknown"


def test_an_operand_skipped_whether_or_not_a_name_is_none_is_never_compiled(tmp_path):
    # transformers' masking_utils: `not (mask is not None and is_tracing(mask)) and (mask is None or
    # mask.all())`: with a mask the first operand stops the chain, without one the `or` does, so
    # `mask.all()` never runs compiled (the workloads' oracle never saw bert's compiled run reach it)
    (tmp_path / "masks.py").write_text(textwrap.dedent(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, mask: torch.Tensor | None, other: torch.Tensor | None):
                if not (mask is not None and torch.compiler.is_compiling()) and (mask is None or mask.all()):
                    return x
                if (mask is None or torch.compiler.is_compiling()) and (other is None or other.all()):
                    return x
                if (mask is None or torch.compiler.is_compiling()) and (mask is None or mask.any()):
                    return x
                return x
        """
    ))
    found = _findings(tmp_path, "--no-cache", "--scope", "all", "masks.py")
    assert found == [
        ("masks.py", 7, "ZL303", "never", "not evaluated under torch.compile"),
        ("masks.py", 9, "ZL303", "compiled", "forward of Net"),  # `other` None or not: unknown
        ("masks.py", 11, "ZL303", "compiled", "forward of Net"),  # runs compiled when there is a mask
    ]


def test_below_a_guard_that_returns_dynamo_knows_what_it_tested_against_none(tmp_path):
    # transformers' masking_utils: `if exporting() or (mask is not None and is_tracing(mask)):
    # return False` leaves dynamo only the path where `mask` is None, so a later `mask is None or
    # fast_all(mask)` never evaluates `fast_all(mask)` compiled (the workloads' oracle: the line ran
    # eagerly, never traced); a name rebound since, or a guard nested in a branch, says nothing
    (tmp_path / "masks.py").write_text(textwrap.dedent(
        """
        import torch
        from torch import nn

        def narrowed(mask: torch.Tensor | None, q: int):
            if torch.compiler.is_exporting() or (mask is not None and torch.compiler.is_compiling()):
                return False
            if q == 1 and (mask is None or mask.all()):
                return True
            if mask is not None:
                if mask.any():
                    return True
            return False

        def rebound(mask: torch.Tensor | None, other: torch.Tensor):
            if mask is not None and torch.compiler.is_compiling():
                return False
            mask = other
            if mask is None or mask.all():
                return True
            return False

        def nested(mask: torch.Tensor | None, flag: bool):
            if flag:
                if mask is not None and torch.compiler.is_compiling():
                    return False
            if mask is None or mask.all():
                return True
            return False

        class Net(nn.Module):
            def forward(self, x, m, o):
                return narrowed(m, x.shape[0]), rebound(m, o), nested(m, True)
        """
    ))
    found = _findings(tmp_path, "--no-cache", "--scope", "all", "--select", "ZL303", "masks.py")
    assert found == [
        ("masks.py", 8, "ZL303", "never", "not evaluated under torch.compile"),
        ("masks.py", 11, "ZL303", "never", "branch not taken under torch.compile"),
        ("masks.py", 19, "ZL303", "compiled", "called from Net.forward"),
        ("masks.py", 27, "ZL303", "compiled", "called from Net.forward"),
    ]
