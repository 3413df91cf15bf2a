"""Roles that put code outside the model, by name: functions that run at construction or load
time, host-side classes, files and packages (tests, configuration, the data pipeline, weight
loading, the generation loop, export tooling).

These are the name heuristics of the compiled scope (:mod:`zlint.scope.classify`): apart from
file and package roles, they apply only to code that no compiled code reaches.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath

from zlint.scope.compile_state import is_package

# Functions that run once at construction or load time, eagerly, never inside a compiled forward.
_NEVER_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^__(init|post_init|repr|str)__$|^extra_repr$"), "{name}"),
    (re.compile(r"^_*(init|initialize)_?(weights?|params|parameters)|_init_weights?$|^_*reset_parameters$"),
     "weight init"),
    (re.compile(r"state_dict|^_*load_(pretrained|checkpoint|weights)|^_*from_pretrained$|^_*save_pretrained$"),
     "state-dict load/save"),
    (re.compile(r"filter_fn$|^_*convert_|^_*remap_"), "checkpoint conversion"),
    (re.compile(r"^_*resize_|^_*tie_weights$|^_*prune_heads$"), "model surgery at setup"),
)
# Classes whose methods prepare inputs or describe configuration: they run before the model.
_NEVER_CLASS = re.compile(r"Processor|Processing|Tokenizer|FeatureExtractor|FeatureExtraction")
# Host-side orchestration: objects that drive a compiled model from outside (users compile
# `pipe.unet`, never the pipeline; HF compiles the forward inside `generate`, not the loop).
_HOST_CLASS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"Pipeline"), "diffusion pipeline (host-side orchestration)"),
    (re.compile(r"Scheduler"), "scheduler (host-side)"),
    (re.compile(r"Collator"), "data collator (host-side)"),
    (re.compile(r"GenerationMixin$"), "generation loop (host-side)"),
    (re.compile(r"Conversion(Ops?)?$|Converter$"), "weight conversion (load/save time)"),
    (re.compile(r"CandidateGenerator"), "candidate generator (host-side generation loop)"),
    (re.compile(r"Dataset$|DataLoader$|Sampler$"), "data loading (host-side)"),
    (re.compile(r"Trainer$|Callback$"), "training loop (host-side)"),
    # metrics accumulate the model's outputs after it ran (an nn.Module metric is no host class:
    # class roles apply only to classes that are not modules)
    (re.compile(r"Evaluator$|Metrics?$|Meter$"), "evaluation metrics (host-side, on the model's outputs)"),
    (re.compile(r"Exporter$"), "exporter (host-side)"),
)
# Attention processors are the compute of `Attention.forward` (`self.processor(...)`), not input
# processing, even though their names end in Processor.
ATTENTION_PROCESSOR = re.compile(r"Att(n|ention)\w*Processor")
_GENERATE = re.compile(r"^_*generate(_|$)|_for_generat(e|ion)$")
# Modules whose role, by their file name, is host-side: tests and their helpers, configuration.
_HOST_FILES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^(test_\w+|\w+_test|tests?|testing|testing_utils|conftest)\.py$"), "test code"),
    (re.compile(r"^configuration_\w+\.py$"), "configuration module"),
)
SESSION = re.compile(r"(^|\.)\w*Session$")
# Packages whose code runs outside the model by their role: the data pipeline (datasets,
# transforms and loaders run in data-loader workers, on samples), weight loading (diffusers'
# `loaders/`: LoRA, adapters, single files), the generation loop around the compiled forward and
# export tooling (ONNX translations of ops).
_HOST_PACKAGES = {
    "data": "data pipeline (runs in the data loader)",
    "datasets": "data pipeline (runs in the data loader)",
    "transforms": "data transform (runs in the data loader)",
    "loaders": "weight loading (runs once, eagerly)",
    "generation": "generation loop (runs eagerly around the compiled forward)",
    "exporters": "export tooling (runs once, eagerly)",
}
_CHECKPOINT_PARAMS = frozenset({"checkpoint", "state_dict", "original_state_dict", "ckpt", "model_state"})


def function_role(name: str) -> str | None:
    """Why a function of this name runs eagerly around the model (init, loading, generation)."""
    for pattern, reason in _NEVER_NAMES:
        if pattern.search(name):
            return reason.format(name=name)
    if _GENERATE.search(name):
        return "generation driver (runs eagerly around the compiled forward)"
    return None


def class_role(names: list[str], short: str) -> str | None:
    """Why the methods of a class that is no module run host-side, from its and its bases' names."""
    for pattern, reason in _HOST_CLASS:
        if any(pattern.search(name) for name in names):
            return reason
    for name in names:
        if name.endswith(("Config", "Configuration")):
            return f"configuration ({short})"
        if _NEVER_CLASS.search(name) and not ATTENTION_PROCESSOR.search(name):
            return f"input/output processing ({short})"
    return None


# Criteria: modules that score a model's outputs against targets. Users compile the model
# (Trainer's `torch_compile`, `model.compile()`), and the loss runs around it on its outputs; a
# loss is compiled only where a compiled forward calls it (or it is handed to torch.compile).
_CRITERION = re.compile(r"Loss(es)?($|[A-Z_])|Criterion$")  # MSELoss, LossWithAlignment; not Lossy


def criterion_role(names: list[str]) -> str | None:
    """Why a module's ``forward`` is no compiled root, from its and its bases' names."""
    if any(_CRITERION.search(name) for name in names):
        return "loss criterion (users compile the model; the loss runs on its outputs)"
    return None


def checkpoint_role(params: Iterable[str]) -> str | None:
    """A function that takes a checkpoint or state dict converts or loads weights."""
    checkpoint = _CHECKPOINT_PARAMS.intersection(params)
    return f"checkpoint conversion/loading (takes {sorted(checkpoint)[0]})" if checkpoint else None


def file_role(path: str) -> str | None:
    """Why a file's code runs outside the model, from its name or its package; None if it may not."""
    name = PurePath(path).name
    for pattern, reason in _HOST_FILES:
        if pattern.match(name):
            return reason
    return _host_package(path)


def _host_package(path: str) -> str | None:
    """The role of the package holding ``path`` when it runs outside the model (see _HOST_PACKAGES).
    Only a Python package (a directory with ``__init__.py``) counts: a checkout under ``~/data/``
    says nothing about its code."""
    parent = PurePath(path).parent
    for directory in (parent, *parent.parents):
        if directory.name in _HOST_PACKAGES and is_package(str(directory)):
            return f"{_HOST_PACKAGES[directory.name]}: {directory.name}/ package"
    return None
