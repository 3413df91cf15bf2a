"""Host-side code around a compiled model is never compiled; reachability from a compiled root
wins over every name or class heuristic, and only explicit markers win over reachability."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap

from zlint.scope.classify import classify
from zlint.scope.file_summary import summarize


def scopes(files: dict[str, str]) -> dict[str, list[tuple[str, str]]]:
    """{path: [(scope, reason)]} for the lines marked ``# <-`` in each file, in order."""
    summaries = [summarize(p, ast.parse(textwrap.dedent(src))) for p, src in files.items()]
    found = classify(summaries)
    return {
        path: [found[path].classify(i) for i, line in enumerate(textwrap.dedent(src).splitlines(), 1) if "# <-" in line]
        for path, src in files.items()
    }


def one(src: str) -> list[tuple[str, str]]:
    return scopes({"m.py": src})["m.py"]


def test_reachability_from_forward_wins_over_names_and_classes():
    assert one(
        """
        from torch import nn

        class MaskProcessor:
            @staticmethod
            def downsample(mask, size):
                return mask  # <-

        class SlicedProcessor:
            def __call__(self, attn, hidden_states):
                return MaskProcessor.downsample(hidden_states, 2)  # <-

        def build_pipeline_inputs(x):
            return x  # <-

        def load_weights_into(x, state_dict):
            return x  # <-

        class Attention(nn.Module):
            def __init__(self):
                super().__init__()
                self.processor = SlicedProcessor()

            def forward(self, x):
                return self.processor(self, build_pipeline_inputs(load_weights_into(x, None)))  # <-
        """
    ) == [
        ("compiled", "called from SlicedProcessor.__call__"),
        ("compiled", "called from Attention.forward"),
        ("compiled", "called from Attention.forward"),
        ("compiled", "called from Attention.forward"),
        ("compiled", "forward of Attention"),
    ]


def test_attention_processors_and_method_references():
    assert one(
        """
        from torch import nn

        class AttnProcessor2_0:
            def __call__(self, attn, hidden_states):
                return hidden_states  # <-

        class IPAdapterAttnProcessor(nn.Module):
            def __call__(self, attn, hidden_states):
                return hidden_states  # <-

        class AttnProcessorConfig:
            def to_dict(self):
                return {}  # <-

        class Rotary(nn.Module):
            def __init__(self, config):
                super().__init__()
                init_fn = self.compute_default_rope_parameters
                self.inv_freq = init_fn(config)

            def compute_default_rope_parameters(self, config):
                return config  # <-

            def forward(self, x):
                return x * self.inv_freq
        """
    ) == [
        ("compiled", "attention processor (AttnProcessor2_0)"),
        ("compiled", "attention processor (IPAdapterAttnProcessor)"),
        ("never", "configuration (AttnProcessorConfig)"),
        ("never", "called only from Rotary.__init__"),
    ]


def test_explicit_markers_override_reachability():
    assert one(
        """
        import torch
        from torch import nn

        @torch.compiler.disable
        def log_stats(x):
            return x  # <-

        class Net(nn.Module):
            def forward(self, x):
                log_stats(x)
                if torch.compiler.is_compiling():
                    x = x + 1  # <-
                if torch.jit.is_tracing():
                    x = x - 1  # <-
                return x  # <-
        """
    ) == [
        ("never", "@torch.compiler.disable"),
        ("compiled", "forward of Net"),
        ("never", "branch not taken under torch.compile"),
        ("compiled", "forward of Net"),
    ]


def test_host_side_orchestration_classes_are_never_compiled():
    assert one(
        """
        from diffusers import DiffusionPipeline, SchedulerMixin
        from torch import nn

        class ImagePipeline(DiffusionPipeline):
            def __call__(self, prompt):
                return prompt  # <-

        class Step(ModularPipelineBlocks):
            def __call__(self, components, state):
                return state  # <-

        class InputStep(Step):
            def __call__(self, components, state):
                return state  # <-

        class EulerDiscrete(SchedulerMixin):
            def step(self, model_output, timestep, sample):
                return sample  # <-

        class PromptLookupCandidateGenerator:
            def get_candidates(self, input_ids):
                return input_ids  # <-

        class DataCollatorForSeq2Seq:
            def __call__(self, features):
                return features  # <-

        class Scheduler(nn.Module):
            def forward(self, x):
                return x  # <-

        class Generator(nn.Module):
            def forward(self, x):
                return x  # <-

        class Stepper:
            def step(self, x):
                return x  # <-
        """
    ) == [
        ("never", "diffusion pipeline (host-side orchestration)"),
        ("never", "diffusion pipeline (host-side orchestration)"),
        ("never", "diffusion pipeline (host-side orchestration)"),
        ("never", "scheduler (host-side)"),
        ("never", "candidate generator (host-side generation loop)"),
        ("never", "data collator (host-side)"),
        ("compiled", "forward of Scheduler"),
        ("compiled", "forward of Generator"),
        ("unknown", "no compiled caller found"),
    ]


def test_generation_drivers_are_never_compiled_unless_forward_reaches_them():
    assert one(
        """
        from torch import nn

        class LM(nn.Module):
            def forward(self, x):
                return self.prepare_inputs_for_generation(x)  # <-

            def prepare_inputs_for_generation(self, x):
                return x  # <-

            def generate(self, x):
                return self._sample(x)  # <-

            def _update_model_kwargs_for_generation(self, x):
                return x  # <-

            def _sample(self, x):
                return x  # <-

            def regenerate_cache(self, x):
                return x  # <-
        """
    ) == [
        ("compiled", "forward of LM"),
        ("compiled", "called from LM.forward"),
        ("never", "generation driver (runs eagerly around the compiled forward)"),
        ("never", "generation driver (runs eagerly around the compiled forward)"),
        ("never", "called only from LM.generate"),
        ("unknown", "no compiled caller found"),
    ]


def test_never_propagates_through_module_helpers_and_files():
    found = scopes(
        {
            "pipe/utils.py": """
                def rescale(x):
                    return x  # <-
                """,
            "pipe/pipeline_x.py": """
                from .utils import rescale

                def retrieve_timesteps(scheduler, n):
                    return rescale(n)  # <-

                def orphan(x):
                    return x  # <-

                class XPipeline(DiffusionPipeline):
                    def __call__(self, n):
                        return retrieve_timesteps(self.scheduler, n)
                """,
        }
    )
    assert found == {
        "pipe/utils.py": [("never", "called only from retrieve_timesteps")],
        "pipe/pipeline_x.py": [
            ("never", "called only from XPipeline.__call__"),
            ("unknown", "no compiled caller found"),
        ],
    }


def test_tracing_only_branches_and_what_only_they_call():
    assert one(
        """
        import torch
        from torch import nn
        from torchvision import _is_tracing

        def fake_cast(x):
            return x  # <-

        def shared(x):
            return x  # <-

        class Net(nn.Module):
            def forward(self, x):
                if _is_tracing():
                    x = fake_cast(shared(x))  # <-
                elif torch.onnx.is_in_onnx_export():
                    x = x * 2  # <-
                else:
                    x = shared(x)  # <-
                if not torch.jit.is_scripting():
                    x = x + 1  # <-
                if is_tracing_enabled:
                    x = x - 1  # <-
                return x
        """
    ) == [
        ("never", "called only in a tracing/scripting branch of Net.forward"),
        ("compiled", "called from Net.forward"),
        ("never", "branch not taken under torch.compile"),
        ("never", "branch not taken under torch.compile"),
        ("compiled", "forward of Net"),
        ("compiled", "forward of Net"),
        ("compiled", "forward of Net"),
    ]


def test_checkpoint_parameters_mean_conversion_unless_forward_calls():
    assert one(
        """
        from torch import nn

        def rename_keys(original_state_dict, config):
            return original_state_dict  # <-

        def merge(x, state_dict):
            return x  # <-

        def merge_states(x, states):
            return x  # <-

        class Net(nn.Module):
            def forward(self, x):
                return merge(x, None)
        """
    ) == [
        ("never", "checkpoint conversion/loading (takes original_state_dict)"),
        ("compiled", "called from Net.forward"),
        ("unknown", "no compiled caller found"),
    ]


def test_a_predicate_of_the_run_is_read_from_its_definition():
    # transformers' is_tracing() is True under dynamo (it ORs is_torchdynamo_compiling), the
    # opposite of torch.jit.is_tracing(): the branch it guards is read from what it returns
    found = scopes(
        {
            "lib/import_utils.py": """
                import torch

                def is_torchdynamo_compiling():
                    return torch.compiler.is_compiling()

                def is_tracing(tensor=None):
                    _is_tracing = is_torchdynamo_compiling() or is_jit_tracing()
                    if tensor is not None:
                        _is_tracing |= is_fake_tensor(tensor)
                    return _is_tracing

                def is_tracing_unknown(tensor=None):
                    return some_flag()
                """,
            "lib/masks.py": """
                from torch import nn
                from .import_utils import is_tracing, is_tracing_unknown

                def eager_only_helper(x):
                    return x  # <-

                class Net(nn.Module):
                    def forward(self, x, mask):
                        if is_tracing(x):
                            x = x + 1  # <-
                        else:
                            x = eager_only_helper(x)  # <-
                        if not is_tracing_unknown(x):
                            x = x - 1  # <-
                        if (
                            not (mask is None or is_tracing(mask))
                            and mask.all()  # <-
                        ):
                            x = x * 2  # <-
                        if mask.any() or is_tracing(mask):  # <-
                            x = x * 3  # <-
                        return x
                """,
        }
    )
    branch = ("never", "branch not taken under torch.compile")
    assert found["lib/masks.py"] == [
        ("never", "called only in a tracing/scripting branch of Net.forward"),
        ("compiled", "forward of Net"),
        branch,
        ("compiled", "forward of Net"),  # a predicate whose value is not known decides nothing
        ("never", "not evaluated under torch.compile"),
        branch,
        ("compiled", "forward of Net"),  # the deciding operand comes last: all of it runs
        ("compiled", "forward of Net"),
    ]


def test_private_is_compiling_wrapper_and_torch_predicates():
    assert one(
        """
        import torch

        def _is_compiling():
            if hasattr(torch, "compiler"):
                return torch.compiler.is_compiling()
            return False

        def _get_value(x):
            if not torch.jit.is_scripting() and _is_compiling():
                return x  # <-
            else:
                return x.item()  # <-
        """
    ) == [("unknown", "no compiled caller found"), ("never", "branch not taken under torch.compile")]


def test_setup_code_that_changes_the_model_is_never_compiled_unless_forward_calls_it():
    assert one(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def _resize_final_logits_bias(self, n):
                return n  # <-

            def grow(self, n):
                self.register_buffer("bias", torch.zeros(n))  # <-

            def swap(self, n):
                self.weight = nn.Parameter(torch.zeros(n))  # <-

            def _set_cache(self, n):
                self.register_buffer("cache", torch.zeros(n), persistent=False)  # <-

            def generate_speech(self, x):
                return x  # <-

            def generated_tokens(self, x):
                return x  # <-

            def forward(self, x):
                self._set_cache(x.shape[0])
                return x
        """
    ) == [
        ("never", "model surgery at setup"),
        ("never", "changes the model's parameters or buffers (setup)"),
        ("never", "changes the model's parameters or buffers (setup)"),
        ("compiled", "called from Net.forward"),  # a lazily grown cache: forward calls it
        ("never", "generation driver (runs eagerly around the compiled forward)"),
        ("unknown", "no compiled caller found"),
    ]


def test_data_pipeline_packages_are_host_side_only_when_they_are_packages(tmp_path):
    source = """
        from torch import nn

        class RandomCrop(nn.Module):
            def forward(self, x):
                return x  # <-
        """
    for package in ("transforms", "data", "loaders", "generation", "exporters"):
        (tmp_path / "pkg" / package).mkdir(parents=True)
        (tmp_path / "pkg" / package / "__init__.py").write_text("")
    (tmp_path / "data" / "models").mkdir(parents=True)  # a checkout under ~/data: not a package
    found = scopes(
        {
            str(tmp_path / "pkg" / "transforms" / "v2.py"): source,
            str(tmp_path / "pkg" / "loaders" / "lora.py"): source,
            str(tmp_path / "pkg" / "generation" / "utils.py"): source,
            str(tmp_path / "pkg" / "exporters" / "onnx.py"): source,
            str(tmp_path / "data" / "models" / "net.py"): source,
        }
    )
    assert list(found.values()) == [
        [("never", "data transform (runs in the data loader): transforms/ package")],
        [("never", "weight loading (runs once, eagerly): loaders/ package")],
        [("never", "generation loop (runs eagerly around the compiled forward): generation/ package")],
        [("never", "export tooling (runs once, eagerly): exporters/ package")],
        [("compiled", "forward of RandomCrop")],
    ]


def test_file_roles_tests_and_configuration_yield_only_to_an_explicit_compile():
    module = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x  # <-

        def helper(x):
            return x  # <-
        """
    compiled_in_a_test = """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                return x  # <-

        @torch.compile
        def step(x):
            return x  # <-

        def test_net():
            torch.compile(Net())(torch.ones(2))  # <-
        """
    found = scopes(
        {
            "pkg/testing_utils.py": module,
            "pkg/configuration_net.py": module,
            "tests/test_net.py": compiled_in_a_test,
            "pkg/contest_utils.py": module,  # near miss: not a test module name
        }
    )
    assert found == {
        "pkg/testing_utils.py": [("never", "test code")] * 2,
        "pkg/configuration_net.py": [("never", "configuration module")] * 2,
        "tests/test_net.py": [
            ("compiled", "passed to torch.compile"),
            ("compiled", "decorated with torch.compile"),
            ("never", "test code"),
        ],
        "pkg/contest_utils.py": [("compiled", "forward of Net"), ("unknown", "no compiled caller found")],
    }


def test_streaming_drivers_and_generation_mixins_are_host_side():
    assert one(
        """
        from torch import nn

        class VideoModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.tracker = nn.Linear(2, 2)

            def plan(self, session):
                return session  # <-

            def forward(self, inference_session: VideoInferenceSession, frame=None):
                return self.plan(inference_session)  # <-

        class Tracker(nn.Module):
            def forward(self, x, session_id: int = 0):
                return x  # <-

        class TtsGenerationMixin(GenerationMixin):
            def _sample(self, input_ids):
                return input_ids  # <-

        class Fp8Quantize(ConversionOps):
            def convert(self, value):
                return value  # <-
        """
    ) == [
        ("never", "called only from VideoModel.forward"),
        ("never", "streaming driver (takes an inference session)"),
        ("compiled", "forward of Tracker"),
        ("never", "generation loop (host-side)"),
        ("never", "weight conversion (load/save time)"),
    ]


def test_blocks_that_end_by_raising_are_the_error_path():
    error = ("never", "error path (runs only on the way to raising)")
    forward = ("compiled", "forward of Net")
    assert one(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x, boxes, n):
                if boxes.any():  # <-
                    idx = torch.where(boxes.any(dim=1))[0][0]  # <-
                    torch._assert(False, f"bad box {idx}")
                if n != x.shape[0]:  # <-
                    raise ValueError(
                        f"{n.item()} tokens"  # <-
                    )
                try:
                    y = x.tolist()  # <-
                except RuntimeError:
                    z = x.item()  # <-
                    raise
                if n > 3: raise ValueError(x.item())  # <-
                if n > 4:
                    y = x.item()  # <-
                    torch._assert(True, "fine")
                return x
        """
    ) == [forward, error, forward, error, forward, error, forward, forward]


def test_the_reason_does_not_depend_on_the_hash_seed():
    # two compiled callers reach one helper: which one the reason names must not vary by run
    script = textwrap.dedent(
        '''
        import ast
        from zlint.scope.classify import classify
        from zlint.scope.file_summary import summarize
        src = """
        from torch import nn

        def blend(x):
            return x

        class Vae(nn.Module):
            def forward(self, x):
                return self.tiled_decode(x) + self.tiled_encode(x)

            def tiled_decode(self, x):
                return blend(x)

            def tiled_encode(self, x):
                return blend(x)
        """
        print(classify([summarize("m.py", ast.parse(src))])["m.py"].classify(5))
        '''
    )
    seen = {
        subprocess.run(
            [sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(seen) == 1, seen


def test_code_that_builds_modules_constructs_the_model_unless_compiled_code_calls_it():
    assert scopes({
        "regnet.py": """
            import torch
            from torch import nn

            class Block(nn.Module):
                def forward(self, x):
                    return x

            def make_stage(widths):
                return [Block() for w in widths if w.shape[0] > 1]  # <-

            def make_head(width):
                return nn.Linear(width, 2) if width.numel() > 1 else None  # <-

            def with_parameter(shape):
                return nn.Parameter(torch.zeros(shape)) if shape[0] > 1 else None  # <-

            class Lazy(nn.Module):
                def forward(self, x):
                    return self.grow(x)

                def grow(self, x):
                    return nn.Identity()(x)  # <-
            """,
        "test.py": """
            def check(x):
                return x  # <-
            """,
    }) == {
        "regnet.py": [
            ("never", "builds modules (Block(...)): model construction"),
            ("never", "builds modules (Linear(...)): model construction"),
            ("unknown", "no compiled caller found"),
            ("compiled", "called from Lazy.forward"),
        ],
        "test.py": [("never", "test code")],
    }


def test_one_time_set_up_that_caches_on_the_module_runs_on_the_first_call_only():
    assert one(
        """
        from torch import nn

        class Pooler(nn.Module):
            def forward(self, x):
                if self.scales is None:
                    self.scales = [x.shape[-1] / 4]  # <-
                if not self._checked:
                    assert x.shape[0] > 0  # <-
                    self._checked = True
                if self.grid is None:
                    grid = x.shape[-1]  # <-
                if self.cache is not None:
                    self.cache = x.shape[0]  # <-
                return x  # <-
        """
    ) == [
        ("never", "one-time set-up: sets self.scales on the first call only"),
        ("never", "one-time set-up: sets self._checked on the first call only"),
        ("compiled", "forward of Pooler"),
        ("compiled", "forward of Pooler"),
        ("compiled", "forward of Pooler"),
    ]


def test_a_method_called_on_a_submodule_is_that_method_not_its_forward():
    assert one(
        """
        from torch import nn

        class Head(nn.Module):
            def forward(self, x):
                return x

            def compute_loss(self, x):
                return x  # <-

            def unused(self, x):
                return x  # <-

        class Detector(nn.Module):
            def __init__(self, head=None):
                super().__init__()
                if head is None:
                    head = Head()
                self.head = head

            def forward(self, x):
                return self.head.compute_loss(x)
        """
    ) == [("compiled", "called from Detector.forward"), ("unknown", "no compiled caller found")]


def test_code_that_hands_tensors_to_host_libraries_runs_around_the_model():
    assert one(
        """
        import numpy as np
        from PIL import ImageDraw
        from torch import nn

        def draw(image, boxes):
            ImageDraw.Draw(image)
            return boxes.shape[0] > 1  # <-

        def to_array(x):
            return x.numpy() if x.shape[0] > 1 else None  # <-

        def as_array(x):
            return np.asarray(x) if x.shape[0] > 1 else None  # <-

        class Net(nn.Module):
            def forward(self, x):
                return x.numpy()  # <-
        """
    ) == [
        ("never", "hands tensors to host libraries (.numpy(), PIL, matplotlib, OpenCV)"),
        ("never", "hands tensors to host libraries (.numpy(), PIL, matplotlib, OpenCV)"),
        ("unknown", "no compiled caller found"),
        ("compiled", "forward of Net"),
    ]


def test_a_predicate_whose_except_handler_falls_back_is_read_from_its_try_body():
    # segmentation_models_pytorch's is_torch_compiling(): `return False` only where torch lacks
    # the API the try body calls; the branch under `not (... or is_torch_compiling())` never runs
    found = scopes(
        {
            "lib/utils.py": """
                import torch

                def is_torch_compiling():
                    try:
                        return torch.compiler.is_compiling()
                    except Exception:
                        return False

                def undecided(flag):
                    if flag:
                        return torch.compiler.is_compiling()
                    return False
                """,
            "lib/model.py": """
                import torch
                from torch import nn
                from .utils import is_torch_compiling, undecided

                class Net(nn.Module):
                    def check_input_shape(self, x):
                        return x  # <-

                    def forward(self, x):
                        if not (torch.jit.is_scripting() or is_torch_compiling()):
                            self.check_input_shape(x)  # <-
                        if not undecided(x):
                            x = x - 1  # <-
                        return x
                """,
        }
    )
    assert found["lib/model.py"] == [
        ("never", "called only in a tracing/scripting branch of Net.forward"),
        ("never", "branch not taken under torch.compile"),
        ("compiled", "forward of Net"),  # two returns that disagree outside any handler
    ]


def test_a_forward_that_a_class_decorator_replaces_runs_only_where_its_dispatch_picks_it():
    # transformers' @use_experts_implementation: `experts_class.forward = forward`, a dispatcher
    # that calls the original only when the configured implementation is "eager"
    found = scopes(
        {
            "lib/moe.py": """
                from functools import wraps

                def use_experts_implementation(experts_class=None, *, interface=None):
                    def wrapper(experts_class):
                        original_forward = experts_class.forward

                        @wraps(original_forward)
                        def forward(self, *args, **kwargs):
                            chosen = interface.get_interface(self.config.impl, original_forward)
                            return chosen(self, *args, **kwargs)

                        experts_class.forward = forward
                        return experts_class

                    return wrapper(experts_class) if experts_class is not None else wrapper

                def register(cls):
                    cls.registered = True
                    return cls
                """,
            "lib/model.py": """
                from torch import nn
                from .moe import register, use_experts_implementation

                def per_expert(x):
                    return x  # <-

                @use_experts_implementation
                class Experts(nn.Module):
                    def forward(self, x):
                        return per_expert(x)  # <-

                @register
                class Registered(nn.Module):
                    def forward(self, x):
                        return x  # <-
                """,
        }
    )
    replaced = (
        "unknown", "@use_experts_implementation replaces this forward: it runs only where its dispatch picks it"
    )
    assert found["lib/model.py"] == [
        ("unknown", "no compiled caller found"),
        replaced,
        ("compiled", "forward of Registered"),  # a class decorator that leaves forward alone
    ]


def test_a_loss_criterion_is_compiled_only_where_a_compiled_forward_calls_it():
    found = scopes(
        {
            "m.py": """
                import torch
                from torch import nn
                from torch.nn.modules.loss import _Loss

                def lovasz_grad(x):
                    return x  # <-

                class LovaszLoss(_Loss):
                    def forward(self, y_pred, y_true):
                        return lovasz_grad(y_pred)  # <-

                class Base(_Loss):
                    pass

                class Weighted(Base):
                    def forward(self, y_pred, y_true):
                        return y_pred  # <-

                class MarginMSELoss(nn.Module):
                    def forward(self, outputs, targets):
                        return outputs  # <-

                class LossyCodec(nn.Module):
                    def forward(self, x):
                        return x  # <-

                class DetrLoss(nn.Module):
                    def forward(self, outputs, targets):
                        return outputs  # <-

                class Detr(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.criterion = DetrLoss()

                    def forward(self, x, labels=None):
                        return self.criterion(x, labels)

                class GlossEncoder(nn.Module):
                    def forward(self, x):
                        return x  # <-

                class CompiledLoss(nn.Module):
                    def forward(self, x):
                        return x  # <-

                step = torch.compile(CompiledLoss())
                """,
        }
    )
    criterion = ("unknown", "loss criterion (users compile the model; the loss runs on its outputs)")
    assert found["m.py"] == [
        ("unknown", "no compiled caller found"),
        criterion,
        criterion,  # through a base class of the run
        criterion,  # an acronym before Loss
        ("compiled", "forward of LossyCodec"),  # a near miss by name
        ("compiled", "called from Detr.forward"),  # a model's forward calls it
        ("compiled", "forward of GlossEncoder"),  # a near miss by name
        ("compiled", "passed to torch.compile"),
    ]


def test_a_data_package_helper_that_compiled_code_calls_is_compiled(tmp_path):
    # a package folder named `data/` is host-side by its name, but reaching compiled code wins
    # over a name: a model's forward that calls its helper runs it compiled
    for package in ("pkg", "pkg/data", "pkg/models"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    found = scopes(
        {
            str(tmp_path / "pkg" / "data" / "utils.py"): """
                def pad_to_multiple(x, multiple):
                    return x  # <-

                def collate(batch):
                    return batch  # <-
                """,
            str(tmp_path / "pkg" / "models" / "net.py"): """
                from torch import nn
                from ..data.utils import pad_to_multiple

                class Net(nn.Module):
                    def forward(self, x):
                        return pad_to_multiple(x, 8)  # <-
                """,
        }
    )
    assert list(found.values()) == [
        [("compiled", "called from Net.forward"), ("never", "data pipeline (runs in the data loader): data/ package")],
        [("compiled", "forward of Net")],
    ]
