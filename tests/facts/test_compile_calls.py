"""ZL410-ZL419: the torch.compile calls themselves, checked against the target torch's data."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

from conftest import ALL, ROOT, codes_at, lint, run_zlint
from zlint.core.settings import ConfigError, Settings, settings_from_table

#: the ZL41x rules; ZL418 is opt-in, so it is named whole (a prefix leaves opt-in rules off)
ZL41 = Settings(select=("ZL41", "ZL418"))
DEFAULT = Settings()

# The recipe from a popular article, as a new user pastes it.
RECIPE = """\
import torch

model = torch.nn.Linear(4, 4)
compiled = torch.compile(model, dynamic=True, mode='max-autotune', fullgraph=False,
                         options={'triton.cudagraphs': True, 'trace.enabled': True})
other = torch.compile(model, options={'target': 'cuda'}, optimize_cache=True, cache_size=64)
print(torch.compiled_cache_info())
torch.clear_compiled_cache()
"""


def test_recipe_is_flagged_piece_by_piece():
    assert codes_at(RECIPE, ZL41) == [
        (4, 33, "ZL418"),  # dynamic=True (opt-in, named here)
        (4, 52, "ZL416"),  # mode='max-autotune' records CUDA graphs, with dynamic=True
        (5, 26, "ZL410"),  # options= together with mode=
        (6, 39, "ZL413"),  # 'target'
        (6, 58, "ZL414"),  # optimize_cache=
        (6, 79, "ZL414"),  # cache_size=
        (7, 13, "ZL415"),  # torch.compiled_cache_info (the unknown name)
        (8, 7, "ZL415"),  # torch.clear_compiled_cache
    ]


def test_recipe_by_default_leaves_out_the_opt_in_rule():
    assert [c for _, _, c in codes_at(RECIPE, DEFAULT) if c.startswith("ZL41")] == [
        "ZL416", "ZL410", "ZL413", "ZL414", "ZL414", "ZL415", "ZL415",
    ]


def test_messages_name_the_fix():
    by_code = {d.code: d.message for d in lint(RECIPE, ZL41)}
    assert "drop `mode` or move its settings into `options`" in by_code["ZL410"]
    assert "'max_autotune': True" in by_code["ZL410"]
    assert "torch 2.13.0" in by_code["ZL413"] or "torch 2." in by_code["ZL413"]
    assert "mark_dynamic" in by_code["ZL418"]
    assert "cudagraph_skip_dynamic_graphs" in by_code["ZL416"]


@pytest.mark.parametrize(
    "code, expected",
    [
        # aliases of torch and of torch.compile
        ("import torch as T\nT.compile(f, mode='max_autotune')\n", [(2, 19, "ZL411")]),
        ("from torch import compile as tc\ntc(f, backend='inductr')\n", [(2, 15, "ZL412")]),
        ("import torch\n@torch.compile(mode='reduce_overhead')\ndef f(x):\n    return x\n", [(2, 21, "ZL411")]),
        ("import torch\ntorch._dynamo.optimize('inductr')\n", [(2, 24, "ZL412")]),
        # nn.Module.compile passes its arguments on to torch.compile
        ("m.compile(mode='max-autotune', options={'trace.enabled': True})\n", [(1, 32, "ZL410")]),
        ("import torch\ntorch.compile(f, backend='aot_eager', mode='x', options={})\n", [(2, 49, "ZL410")]),
        (
            "import torch\ntorch.compile(f, options=dict(max_autotune=1, bogus=True))\n",
            [(2, 44, "ZL419"), (2, 47, "ZL413")],
        ),
        ("import torch\ntorch.compile(f, options={'max-autotune': 'yes'})\n", [(2, 43, "ZL419")]),
        ("import torch\ntorch.compile(f, 'max-autotune')\n", [(2, 18, "ZL414")]),
        ("import torch\ntorch.compile(f, recompile_limit=1000)\n", [(2, 18, "ZL417")]),
    ],
)
def test_positives(code, expected):
    assert codes_at(code, ZL41) == expected


@pytest.mark.parametrize(
    "code",
    [
        # variables, **kwargs and None: values unknown or absent
        "import torch\ntorch.compile(f, mode=mode, options=opts, backend=backend)\n",
        "import torch\ntorch.compile(f, mode='max-autotune', options=None)\n",
        "import torch\ntorch.compile(f, mode=None, options={'trace.enabled': True})\n",
        "import torch\ntorch.compile(f, backend=backend, mode=mode, **compile_kwargs)\n",
        "import torch\ntorch.compile(f, options={**base, 'x': 1})\n",
        "import torch\ntorch.compile(f, options=opts, dynamic=dynamic)\n",
        # valid calls
        "import torch\ntorch.compile(f, fullgraph=True, dynamic=False)\n",
        "import torch\ntorch.compile(f, mode='lite')\n",
        "import torch\ntorch.compile(f, options={'trace.enabled': True, 'epilogue-fusion': False})\n",
        "import torch\ntorch.compile(f, options={'guard_filter_fn': keep, 'use_aoti': False})\n",
        "import torch\ntorch.compile(f, options={'triton.cudagraph_dynamic_shape_warn_limit': None})\n",
        "import torch\ntorch.compile(f, backend='aot_eager', mode='whatever')\n",
        "import torch\ntorch.compile(f, backend='aot_eager', options={'x': 1})\n",
        "import torch\ntorch.compile(f, backend='tensorrt')\n",
        "import torch\ntorch.compile(f, mode='reduce-overhead')\n",  # static shapes: fine
        "import torch\ntorch.compile(f, mode='max-autotune-no-cudagraphs', dynamic=None)\n",
        "import torch\ntorch.compile(f, recompile_limit=16)\n",
        # not torch.compile
        "import re\nre.compile('a+', flags=0)\n",
        "def compile(x, mode=None):\n    pass\ncompile(1, mode='bogus')\n",
        "model.compile(optimizer='adam', loss='mse')\n",
        # a compile() method of another class (timm's DistillationTeacher), seen in the corpus
        "self.teacher.compile(backend=backend, mode='max_autotune', compile_model=True, **kw)\n",
        "m.compile('max-autotune')\n",
        "import torch\ndevice = torch.neuron.current_device()\n",
        "import tensorflow as tf\ntf.compile(mode='x')\n",
        # attributes that exist, stores, guards, plugin device modules
        "import torch\ntorch.compiler.reset()\ntorch._dynamo.config.recompile_limit = 16\n",
        "import torch\ntorch._dynamo.config.cache_size_limit = 16\n",  # an alias: exists
        "import torch._inductor.config\ntorch._inductor.config.triton.cudagraphs = False\n",
        "import torch\ntorch.my_patch = 1\ndel torch.my_patch\n",
        "import torch\nif hasattr(torch, 'future'):\n    torch.future()\n",
        "import torch\nf = torch.future if hasattr(torch, 'future') else None\n",
        "import torch\nok = hasattr(torch.compiler, 'x') and torch.compiler.x()\n",
        "import torch\ntry:\n    from torch._dynamo import gone\nexcept ImportError:\n    gone = None\n",
        "import torch\nif is_torch_version('>=', '2.99'):\n    torch.future()\n",
        "import torch\ntorch.npu.synchronize()\n",
        "import torch\nfrom torch._dynamo import eval_frame\nimport torch._dynamo.config\n",
        "import numpy as np\nnp.not_in_torch()\n",
        "torch.not_imported_here()\n",
    ],
)
def test_negatives(code):
    assert codes_at(code, ZL41) == []


def test_attribute_checks_through_imports_and_config_nesting():
    code = textwrap.dedent(
        """\
        import torch._dynamo as dynamo
        from torch import compiler as tc
        from torch._dynamo import config as dcfg
        from torch import clear_compiled_cache
        import torch._dynamo.bogus_module
        import torch._inductor.config as ic
        dynamo.config.cache_size_limt = 16
        tc.reset_cache()
        print(dcfg.recompile_limt)
        ic.triton.cudagraph = True
        """
    )
    assert codes_at(code, ZL41) == [
        (4, 19, "ZL415"),
        (5, 8, "ZL415"),
        (7, 15, "ZL415"),
        (8, 4, "ZL415"),
        (9, 12, "ZL415"),
        (10, 11, "ZL415"),
    ]
    messages = [d.message for d in lint(code, ZL41)]
    assert "did you mean 'cache_size_limit'" in messages[2]
    assert "did you mean 'recompile_limit'" in messages[4]
    assert "did you mean 'triton.cudagraphs'" in messages[5]


def test_cudagraphs_with_mark_dynamic_and_loops():
    code = textwrap.dedent(
        """\
        import torch

        model = torch.nn.Linear(8, 8)

        def serve(batch):
            fast = torch.compile(model, mode="reduce-overhead")
            torch._dynamo.mark_dynamic(batch, 0)
            return fast(batch)

        def sweep():
            fast = torch.compile(model, options={"triton.cudagraphs": True})
            for n in (1, 2, 4):
                fast(torch.randn(n, 8))

        def fixed(batch):
            fast = torch.compile(model, mode="reduce-overhead")
            other = batch
            torch._dynamo.mark_dynamic(other, 0)
            for _ in range(3):
                fast(batch)
        """
    )
    assert codes_at(code, ZL41) == [(6, 38, "ZL416"), (11, 42, "ZL416")]
    messages = [d.message for d in lint(code, ZL41)]
    assert "`batch` is marked dynamic" in messages[0]
    assert "vary with `n`" in messages[1]


def test_raised_limits_forms_and_info_severity():
    code = textwrap.dedent(
        """\
        import sys
        import torch
        from torch._dynamo import config

        torch._dynamo.config.cache_size_limit = 1_000_000
        config.accumulated_recompile_limit = sys.maxsize
        setattr(torch._dynamo.config, "recompile_limit", float("inf"))
        config.patch("cache_size_limit", 1e6)
        config.patch({"recompile_limit": 2 ** 10})
        torch._dynamo.config.recompile_limit = 32
        torch._dynamo.config.cache_size_limit = n
        """
    )
    assert [(line, code) for line, _, code in codes_at(code, ZL41)] == [
        (5, "ZL417"), (6, "ZL417"), (7, "ZL417"), (8, "ZL417"), (9, "ZL417"),
    ]
    from zlint.core.registry import RULES_BY_CODE

    assert RULES_BY_CODE["ZL417"].severity == "info"
    assert RULES_BY_CODE["ZL418"].default_enabled is False


# -- the torch-version setting --------------------------------------------------------------------


def test_torch_version_setting_is_validated_and_normalized(tmp_path):
    assert settings_from_table({"torch-version": "2.13"}, "p", None).torch_version == "2.13.0"
    for bad in ("latest", 2.13, "", "x2.1"):
        with pytest.raises(ConfigError, match="torch-version|torch version"):
            settings_from_table({"torch-version": bad}, "p", None)
    project = tmp_path / "pyproject.toml"
    project.write_text('[tool.zlint]\ntorch-version = "two"\n')
    (tmp_path / "a.py").write_text("import torch\n")
    proc = run_zlint(str(tmp_path / "a.py"), cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("zlint: error:") and "torch version" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_version_falls_back_to_nearest_and_says_so_once(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\ntorch-version = "2.4"\nselect = ["ZL41"]\n')
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import torch\ntorch.compile(f, mode='bogus')\n")
    proc = run_zlint(".", cwd=tmp_path)
    assert proc.returncode == 1
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "no torch data for torch 2.4.0" in warnings[0]
    assert proc.stdout.count("ZL411") == 2
    assert "torch 2.4.0 (data of " in proc.stdout


def test_target_version_comes_from_metadata_without_importing_torch():
    script = (
        "import sys, importlib.metadata as m\n"
        "from zlint.core.torch_versions import target_torch_version, torch_data\n"
        "from zlint.core.settings import Settings\n"
        "v = target_torch_version(Settings())\n"
        "torch_data(settings=Settings())\n"
        "print(v, 'torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    version, imported = out.split()
    assert imported == "False"
    if importlib.util.find_spec("torch") is not None:
        from importlib import metadata

        assert metadata.version("torch").startswith(version)
    assert target_version_of(Settings(torch_version="2.13.0")) == "2.13.0"


def target_version_of(settings):
    from zlint.core.torch_versions import target_torch_version

    return target_torch_version(settings)


def test_no_torch_installed_uses_newest_known(monkeypatch):
    from zlint.core import torch_versions as tv

    monkeypatch.setattr(tv, "installed_torch_version", lambda: None)
    newest = tv.format_version(tv.known_versions()[-1])
    assert tv.target_torch_version(None) == newest


def test_nearest_version_prefers_the_same_release_line():
    from zlint.core.torch_versions import nearest_version

    known = [(2, 9, 1), (2, 13, 0), (2, 14, 1)]
    assert nearest_version((2, 13, 1), known) == (2, 13, 0)
    assert nearest_version((2, 14, 0), known) == (2, 14, 1)
    assert nearest_version((2, 11, 0), known) == (2, 13, 0)  # a tie goes to the newer
    assert nearest_version((2, 4, 0), known) == (2, 9, 1)
    assert nearest_version((3, 0, 0), known) == (2, 14, 1)


# -- what torch 2.13 really does with the flagged calls (CPU) ------------------------------------

REAL = """
import json, warnings, torch
warnings.filterwarnings("ignore")
def f(x):
    return x.sin()
cases = {
    "ZL410": dict(mode="max-autotune", options={"trace.enabled": True}),
    "ZL411": dict(mode="max_autotune"),
    "ZL412": dict(backend="inductr"),
    "ZL413": dict(options={"target": "cuda"}),
    "ZL414": dict(optimize_cache=True),
    "ZL419": dict(options={"max_autotune": 1}),
    "ok-lite": dict(mode="lite"),
    "ok-dash": dict(options={"epilogue-fusion": False, "guard_filter_fn": None}),
    "ok-aot": dict(backend="aot_eager", mode="whatever"),
    "ok-limit": dict(recompile_limit=16),
}
out = {}
for name, kwargs in cases.items():
    try:
        torch.compile(f, **kwargs)
        out[name] = "ok"
    except Exception as exc:
        out[name] = type(exc).__name__ + ": " + str(exc)[:80]
for name in ("compiled_cache_info", "clear_compiled_cache"):
    out[name] = hasattr(torch, name)
try:
    torch._dynamo.config.cache_size_limt = 1
    out["config"] = "ok"
except AttributeError as exc:
    out["config"] = str(exc)
out["eager"] = torch.compile(f, backend="eager")(torch.ones(2)).tolist()
print(json.dumps(out))
"""


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_flagged_calls_really_fail_on_the_installed_torch():
    proc = subprocess.run([sys.executable, "-c", REAL], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["ZL410"].startswith("RuntimeError: Either mode or options")
    assert out["ZL411"].startswith("RuntimeError: Unrecognized mode=max_autotune")
    assert out["ZL412"].startswith("InvalidBackend")
    assert out["ZL413"].startswith("RuntimeError: Unexpected optimization option target")
    assert out["ZL414"].startswith("TypeError") and "optimize_cache" in out["ZL414"]
    assert out["ZL419"].startswith("RuntimeError: Unexpected type of attr max_autotune")
    assert [out[k] for k in ("ok-lite", "ok-dash", "ok-aot", "ok-limit")] == ["ok"] * 4
    assert out["compiled_cache_info"] is False and out["clear_compiled_cache"] is False
    assert "cache_size_limt does not exist" in out["config"]
    assert out["eager"] == pytest.approx([0.8414709848, 0.8414709848])


def test_all_rules_select_keeps_docs_and_recipe_consistent():
    # the recipe under ALL: ZL41x findings are exactly those of the ZL41 selection
    assert [c for c in codes_at(RECIPE, ALL) if c[2].startswith("ZL41")] == codes_at(RECIPE, ZL41)


def test_cli_reports_the_recipe(tmp_path):
    path = tmp_path / "recipe.py"
    path.write_text(RECIPE)
    proc = run_zlint("--select", "ZL41", str(path), cwd=ROOT)
    assert proc.returncode == 1
    assert f"{path}:5:26: ZL410 " in proc.stdout
    assert f"{path}:7:13: ZL415 `torch.compiled_cache_info` does not exist" in proc.stdout


def test_findings_follow_the_target_version():
    """Real differences between the shipped 2.13.0 and 2.14.1 data (both generated from live torch)."""
    from zlint.core.torch_versions import known_versions

    if (2, 14, 1) not in known_versions():
        pytest.skip("no 2.14.1 data shipped")
    code = "import torch\ntorch.compile(f, dynamic_shapes=spec)\ntorch.compiler.precompile(f)\n"
    assert codes_at(code, Settings(select=("ZL41",), torch_version="2.13")) == [(2, 18, "ZL414"), (3, 16, "ZL415")]
    assert codes_at(code, Settings(select=("ZL41",), torch_version="2.14.1")) == []
    shapes = "import torch\ntorch.compile(f, shapes_spec=spec)\n"
    assert codes_at(shapes, Settings(select=("ZL41",), torch_version="2.14")) == [(2, 18, "ZL414")]
