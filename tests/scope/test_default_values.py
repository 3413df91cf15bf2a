"""The default configuration across a run (zlint.scope.defaults): values flow through calls and
constructor chains, configuration classes give their declared defaults, attributes set under
branches of ``__init__`` and non-literal values are known when the branches are, and classes
that only default-off paths build are option code. Each principle next to the near misses that
keep a finding where it was."""

from __future__ import annotations

import json
import tempfile
import textwrap
from pathlib import Path

from inprocess import zlint

OPTION = "option"


def findings(src: str, others: dict[str, str] | None = None, named: str = ".") -> list[tuple]:
    """(code, line, scope, reason) of the findings in ``m.py`` with ``--scope all``: a run over
    a package holding it (and ``others``), or over the file ``named``."""
    with tempfile.TemporaryDirectory() as folder:
        package = Path(folder) / "pkg"
        package.mkdir()
        for name, text in {"__init__.py": "", "m.py": src, **(others or {})}.items():
            (package / name).write_text(textwrap.dedent(text).lstrip("\n"))
        proc = zlint("--no-cache", "--format", "json", "--scope", "all", named, cwd=package if named != "." else folder)
    assert proc.returncode in (0, 1), proc.stderr
    rows = json.loads(proc.stdout)
    return [(d["code"], d["location"]["row"], d["scope"], d["scope_reason"]) for d in rows
            if d["filename"].endswith("m.py")]


def scopes(src: str, others: dict[str, str] | None = None, named: str = ".") -> list[str]:
    return [scope for _, _, scope, _ in findings(src, others, named)]


def plus(src: str, more: str) -> str:
    """``src`` with the code ``more`` after it."""
    return textwrap.dedent(src) + "\n\n" + textwrap.dedent(more)


# 1. values flow through calls ---------------------------------------------------------------

CHAIN = """
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, dim, pad=False, crop=False):
            super().__init__()
            self.pad = pad
            self.crop = crop

        def forward(self, x):
            if self.pad:
                x = x[x > 0]
            if self.crop:
                x = x[x > 1]
            return x

    class Net(nn.Module):
        def __init__(self, dim=8, dynamic_pad=False, **kwargs):
            super().__init__()
            self.block = Block(dim, pad=dynamic_pad, **kwargs)

        def forward(self, x):
            return self.block(x)
    """


def test_a_constructor_parameter_is_what_the_constructions_of_the_run_pass():
    # Net passes its own parameter on (default False), and its **kwargs, which no call fills
    assert findings(CHAIN) == [
        ("ZL305", 12, OPTION, "only when self.pad is not its default (False)"),
        ("ZL305", 14, OPTION, "only when self.crop is not its default (False)"),
    ]
    # a construction of the run that turns one on, directly or through **kwargs
    for build, expected in (
        ("Net(dynamic_pad=True)", ["compiled", OPTION]), ("Block(8, True)", ["compiled", OPTION]),
        ("Net(crop=True)", [OPTION, "compiled"]), ("Net(**options)", ["compiled", "compiled"]),
        ("Net(dim=4, crop=False)", [OPTION, OPTION]),
    ):
        built = {"build.py": f"from .m import Net, Block\n\nnet = {build}\n"}
        assert scopes(CHAIN, others=built) == expected, build


def test_a_value_passed_from_an_entry_point_or_an_unknown_is_unknown():
    per_call = CHAIN.replace("self.block = Block(dim, pad=dynamic_pad, **kwargs)", "self.block = Block(dim)").replace(
        "return self.block(x)", "return Block(8, pad=x.shape[0] > 1)(x)")
    assert scopes(per_call) == ["compiled", OPTION, "compiled"]  # and the size test itself
    # a dict that may hold anything
    unpacked = CHAIN.replace("**kwargs)\n", "**dict(kwargs, crop=True))\n", 1)
    assert scopes(unpacked) == [OPTION, "compiled"]


def test_a_function_parameter_is_what_every_call_of_the_run_passes():
    src = """
        import torch
        from torch import nn

        def scale(x, size, crop=False):
            if crop and x.shape[-1] >= size:
                return x[..., :size]
            return x

        class Net(nn.Module):
            def __init__(self, crop=False):
                super().__init__()
                self.crop = crop

            def forward(self, x):
                return scale(x, 4, self.crop)
        """
    assert findings(src) == [("ZL103", 5, OPTION, "only when crop is not its default (False)")]
    # another call passes True; a caller hands the function on as a value (called unseen);
    # the file alone (a caller may be elsewhere)
    assert scopes(plus(src, "def other(x):\n    return scale(x, 2, True)\n")) == ["compiled"]
    assert scopes(plus(src, "CALLBACKS = [scale]\n")) == ["compiled"]
    assert scopes(src, named="m.py") == ["compiled"]


def test_a_method_keyword_argument_stays_per_call():
    src = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, crop=False):
                return self.inner(x, crop)

            def inner(self, x, crop):
                if crop:
                    return x[x > 0]
                return x
        """
    assert scopes(src) == ["compiled"]


# 2. configuration objects -------------------------------------------------------------------

CONFIG = """
    from dataclasses import dataclass

    @dataclass
    class NetConfig:
        layerdrop: float = 0.0
        hidden: int = 8
        use_router: bool = False
    """
MODEL = """
    import torch
    from torch import nn
    from .config import NetConfig

    class Net(nn.Module):
        def __init__(self, config: NetConfig):
            super().__init__()
            self.config = config
            self.layerdrop = config.layerdrop
            self.extra = getattr(config, "extra_drop", 0.0)

        def forward(self, x):
            if self.training and self.layerdrop > 0.0:
                x = x[x > 0]
            if self.config.use_router:
                x = x[x > 1]
            if self.extra > 0:
                x = x[x > 2]
            return x
    """


def test_a_configuration_class_gives_its_declared_defaults():
    assert findings(MODEL, {"config.py": CONFIG}) == [
        ("ZL305", 14, OPTION, "only when self.layerdrop is not its default (0.0)"),
        ("ZL305", 16, OPTION, "only when self.config.use_router is not its default (False)"),
        ("ZL305", 18, OPTION, "only when self.extra is not its default (0.0)"),
    ]


def test_a_configuration_built_otherwise_in_the_run_or_unknown_keeps_the_branch():
    built = {"config.py": CONFIG, "presets.py": "from .config import NetConfig\n\nBIG = NetConfig(layerdrop=0.1)\n"}
    assert scopes(MODEL, others=built) == ["compiled", OPTION, OPTION]
    loaded = {"config.py": CONFIG, "load.py": "from .config import NetConfig\n\ndef load(d):\n"
              "    return NetConfig(**d)\n"}
    # (a saved configuration may add a field it does not declare: a non-default one)
    assert scopes(MODEL, others=loaded) == ["compiled", "compiled", OPTION]
    # a field the configuration derives from another in __post_init__, and a class with a
    # __getattr__ (any name may answer): getattr's default says nothing
    derived = textwrap.dedent(CONFIG) + "\n    def __post_init__(self):\n        self.use_router = self.hidden > 4\n"
    assert scopes(MODEL, {"config.py": derived}) == [OPTION, "compiled", OPTION]
    hooked = textwrap.dedent(CONFIG) + "\n    def __getattr__(self, name):\n        return 1.0\n"
    assert scopes(MODEL, {"config.py": hooked}) == [OPTION, OPTION, "compiled"]
    # no annotation and no construction in sight: the configuration's class is unknown
    assert scopes(MODEL.replace("config: NetConfig", "config"), {"config.py": CONFIG}) == ["compiled"] * 3


def test_a_configuration_loaded_by_a_computed_name_keeps_its_defaults_other_classes_do_not():
    src = """
        import torch
        from torch import nn

        class EncoderConfig:
            def __init__(self, cfg=None):
                self.finetuned = False
                if cfg is not None:
                    self.update(cfg)

            def update(self, cfg):
                self.__dict__.update(cfg)

        class Encoder(nn.Module):
            def __init__(self):
                super().__init__()
                self.cfg = EncoderConfig()
                self.head = nn.Linear(4, 4) if self.cfg.finetuned else None

            def forward(self, x):
                if self.head is not None:
                    x = x[x > 0]
                return x
        """
    assert findings(src) == [("ZL305", 21, OPTION, "only when self.head is not its default (None)")]
    # the same update in a class that is no configuration may set anything
    assert scopes(src.replace("EncoderConfig", "EncoderSettings")) == ["compiled"]


# 3. attributes set under branches of __init__, values that are not literals ----------------

def test_attributes_set_under_decided_branches_and_objects_that_are_not_none():
    src = """
        import torch
        from torch import nn

        def exists(v):
            return v is not None

        class Router(nn.Module):
            def forward(self, x):
                return x

        class Net(nn.Module):
            def __init__(self, router_size=None, use_weight=True, rate=0.0):
                super().__init__()
                self.router = None
                if router_size is not None:
                    self.router = Router()
                self.weight_fn = None
                if use_weight:
                    self.weight_fn = torch.sigmoid
                self.drop = Router() if rate > 0 else nn.Identity()

            def forward(self, x):
                if self.router is not None:
                    x = x[x > 0]
                if exists(self.weight_fn):
                    x = x * 2
                else:
                    x = x[x > 1]
                if self.drop is None:
                    x = x[x > 2]
                return x
        """
    assert findings(src) == [
        ("ZL305", 24, OPTION, "only when self.router is not its default (None)"),
        ("ZL305", 28, OPTION, "only when self.weight_fn is not its default (an object)"),
        ("ZL305", 30, OPTION, "only when self.drop is not its default (an object)"),
    ]
    # a branch whose test is unknown leaves the attribute unknown
    unknown = src.replace("if router_size is not None:", "if torch.cuda.is_available():")
    assert scopes(unknown)[0] == "compiled"


def test_a_local_bound_from_an_option_is_decided_like_it():
    src = """
        import torch
        from torch import nn

        class Quantizer(nn.Module):
            def __init__(self, num=4, dropout=False):
                super().__init__()
                self.dropout = dropout and num > 1

            def forward(self, x):
                q_dropout = self.dropout and self.training
                if q_dropout:
                    x = x[x > 0]
                n, drop = x.shape[0], self.dropout
                if drop:
                    x = x[x > 1]
                q_dropout = x.sum() > 0
                if q_dropout:
                    x = x[x > 2]
                return x
        """
    assert findings(src) == [
        ("ZL305", 12, OPTION, "only when self.dropout is not its default (False)"),
        ("ZL305", 15, OPTION, "only when self.dropout is not its default (False)"),
        ("ZL303", 17, "compiled", "forward of Quantizer"),
        ("ZL305", 18, "compiled", "forward of Quantizer"),
    ]


def test_an_arm_of_a_conditional_expression_the_default_never_takes():
    src = """
        import torch
        from torch import nn

        class VAE(nn.Module):
            def __init__(self):
                super().__init__()
                self.use_tiling = False

            def tiled(self, z):
                return torch.cat([z[i] for i in range(z.shape[0])])

            def forward(self, z):
                return self.tiled(z) if self.use_tiling else z.sum().item()
        """
    reason = "only when self.use_tiling is not its default (False)"
    assert findings(src) == [
        ("ZL201", 10, OPTION, f"called {reason}, from VAE.forward"),
        ("ZL301", 13, "compiled", "forward of VAE"),
    ]


# 4. classes only default-off code builds ---------------------------------------------------

BLOCKS = """
    import torch
    from functools import partial
    from torch import nn

    def drop_block(x, size):
        return x[x > size]

    class DropBlock(nn.Module):
        def __init__(self, p=0.1):
            super().__init__()
            self.p = p

        def forward(self, x):
            return drop_block(x, x.shape[-1] // 2)

    def drop_blocks(rate=0.0):
        return partial(DropBlock, p=rate) if rate else None

    class Net(nn.Module):
        def __init__(self, drop_rate=0.0):
            super().__init__()
            self.drop = DropBlock(drop_rate) if drop_rate > 0 else nn.Identity()
            self.make = drop_blocks(drop_rate)

        def forward(self, x):
            return self.drop(x)
    """


def test_a_class_only_default_off_paths_build_is_option_code():
    why = "only in DropBlock, which is built only when rate is not its default (0.0), in drop_blocks"
    assert findings(BLOCKS) == [("ZL305", 6, OPTION, f"called {why}, from DropBlock.forward")]


def test_a_class_built_on_a_default_path_or_named_elsewhere_keeps_its_scope():
    plain = plus(BLOCKS, "class Wide(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                         "        self.drop = DropBlock()\n")
    assert scopes(plain) == ["compiled"]
    subclass = plus(BLOCKS, "class Bigger(DropBlock):\n    pass\n")  # a user may build the subclass
    assert scopes(subclass) == ["compiled"]
    checked = BLOCKS.replace("return self.drop(x)", "return x if isinstance(self.drop, DropBlock) else x")
    assert scopes(checked) == ["compiled"]
    nowhere = BLOCKS.replace("DropBlock(drop_rate) if drop_rate > 0 else nn.Identity()", "nn.Identity()").replace(
        "partial(DropBlock, p=rate) if rate else None", "None")
    assert scopes(nowhere) == ["compiled"]


# 5. what stays as it was -------------------------------------------------------------------

def test_decorated_constructors_and_files_named_alone_assume_no_defaults():
    decorated = CHAIN.replace(
        "    def __init__(self, dim=8", "    @register_to_config\n        def __init__(self, dim=8")
    assert scopes(decorated) == ["compiled", "compiled"]
    assert scopes(CHAIN, named="m.py") == ["compiled", "compiled"]


def test_an_attribute_other_code_sets_on_the_object_is_no_default():
    # a parent that turns a part on in its own constructor (`heads.keypoint_head = ...`)
    src = """
        import torch
        from torch import nn

        class Heads(nn.Module):
            def __init__(self, keypoint_head=None):
                super().__init__()
                self.keypoint_head = keypoint_head
                self.config = None

            def forward(self, x):
                if self.keypoint_head is not None:
                    x = x[x > 0]
                return x
        """
    assert scopes(src) == [OPTION]
    parent = {"parent.py": """
        from torch import nn
        from .m import Heads

        class KeypointNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.heads = Heads()
                self.heads.keypoint_head = nn.Linear(4, 4)
        """}
    assert scopes(src, others=parent) == ["compiled"]
    # a write only a user's call makes (a toggle that walks the submodules) opts in
    toggle = {"parent.py": parent["parent.py"].replace("self.heads.keypoint_head = nn.Linear(4, 4)", "pass") + """
            def enable_keypoints(self):
                self._set_keypoints(nn.Linear(4, 4))

            def _set_keypoints(self, head):
                for module in self.modules():
                    module.keypoint_head = head
        """}
    assert scopes(src, others=toggle) == [OPTION]
    # an object another class sets (`encoder.config = config`) is still an object
    shared = {"parent.py": parent["parent.py"].replace("self.heads.keypoint_head = nn.Linear(4, 4)",
                                                       "self.heads.config = object()")}
    assert scopes(src, others=shared) == [OPTION]


def test_a_write_by_a_computed_name_spoils_only_where_construction_or_forward_runs_it():
    src = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.use_cache = False

            def set_module(self, name, module):
                setattr(self, name, module)

            def forward(self, x):
                if self.use_cache:
                    x = x[x > 0]
                return x
        """
    assert scopes(src) == [OPTION]  # a setter only users call
    called = src.replace(
        "self.use_cache = False\n", "self.use_cache = False\n                self.set_module('a', None)\n", 1)
    assert scopes(called) == ["compiled"]
    # the train/eval switch is no configuration: it decides nothing
    training = src.replace("if self.use_cache:", "if not self.training:")
    assert scopes(training) == ["compiled"]


def test_a_method_called_on_an_object_of_unknown_class_takes_any_argument():
    src = """
        import torch
        from torch import nn

        class Layer(nn.Module):
            def merge(self, x, safe_merge=False):
                if safe_merge:
                    return x[x > 0]
                return x

            def forward(self, x):
                return self.merge(x)
        """
    assert scopes(src) == [OPTION]
    # peft's tuner calls `target.merge(safe_merge=safe_merge)` on whatever layer it finds
    unbound = plus(src, "def merge_all(targets, safe_merge):\n    for target in targets:\n"
                        "        target.merge(1, safe_merge=safe_merge)\n")
    assert scopes(unbound) == ["compiled"]


def test_a_class_handed_to_a_factory_may_get_the_literal_keywords_the_run_passes():
    src = """
        import torch
        from torch import nn

        def build(cls, **kwargs):
            return cls(**kwargs)

        class Net(nn.Module):
            def __init__(self, small_kernels=False, crop=False):
                super().__init__()
                self.small_kernels = small_kernels
                self.crop = crop

            def forward(self, x):
                if self.small_kernels:
                    x = x[x > 0]
                if self.crop:
                    x = x[x > 1]
                return x

        def net_tiny(**kwargs):
            model_args = dict(small_kernels=True)
            return build(Net, **dict(model_args, **kwargs))
        """
    # every registered variant may set small_kernels; none sets crop
    assert scopes(src) == ["compiled", OPTION]


def test_values_unpacked_from_both_ends_of_a_starred_tuple():
    src = """
        import torch
        from torch import nn

        def exists(v):
            return v is not None

        class Tokenizer(nn.Module):
            def __init__(self, max_size=None):
                super().__init__()
                self.max_size = max_size

            def forward(self, x):
                batch, seq, max_size = *x.shape, self.max_size
                if exists(max_size):
                    x = x[x > 0]
                first, *rest = self.max_size, 1, 2
                if exists(first):
                    x = x[x > 1]
                return x
        """
    # the second unpacking has a starred target: its names are unknown
    assert scopes(src) == [OPTION, "compiled"]


def test_a_configuration_passed_where_the_run_cannot_see_is_in_its_default_configuration():
    config = """
        from dataclasses import dataclass

        @dataclass
        class AdapterConfig:
            dropout: float = 0.0
        """
    src = """
        import torch
        from torch import nn
        from .config import AdapterConfig

        class Dropout(nn.Module):
            def forward(self, x):
                return x[x > 0]

        class Layer(nn.Module):
            def update_layer(self, name, config: AdapterConfig):
                self.drop = Dropout() if config.dropout > 0.0 else nn.Identity()

            def forward(self, x):
                return self.drop(x)

        def inject(targets, config):
            for target in targets:
                target.update_layer("a", config)  # a layer of unknown class
        """
    why = ("only in Dropout, which is built only when config.dropout is not its default (0.0), "
           "in Layer.update_layer")
    assert findings(src, others={"config.py": config}) == [("ZL305", 7, OPTION, why)]
    # a parameter annotated with a class that is no configuration stays unknown
    plain = src.replace("config: AdapterConfig", "config: Dropout")
    assert scopes(plain, others={"config.py": config}) == ["compiled"]


def test_what_a_builder_sets_on_the_model_it_builds_is_that_models_default():
    src = """
        import torch
        from torch import nn

        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self._loss_type = "l1"

            def forward(self, x):
                if self._loss_type == "giou":
                    x = x[x > 0]
                return x

        def head_v2():
            head = Head()
            head._loss_type = "giou"
            return head
        """
    assert scopes(src) == ["compiled"]
    assert scopes(src.replace('head._loss_type = "giou"', "pass")) == [OPTION]
