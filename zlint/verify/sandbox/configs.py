"""A small but consistent config for a module whose ``__init__`` takes one (transformers).

``Wav2Vec2EncoderLayer(config)`` cannot be built with no arguments. Its file imports the config
class (``from .configuration_wav2vec2 import Wav2Vec2Config``); that class built with its defaults
describes a full-size model, so its size fields are made small before the module is built: widths
to :data:`WIDTH`, heads to :data:`HEADS` (the width stays divisible by them), layer counts to 1,
the vocabulary to :data:`VOCAB` (or just past the largest special token id).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import sys
from typing import Any

WIDTH = 64  # hidden_size, *_dim, *_channels: divisible by HEADS and by the usual group counts (2-16)
INTERMEDIATE = 128
HEADS = 4
VOCAB = 96
MAX_POSITIONS = 512

#: int (or list of ints) fields that are widths: shrunk to WIDTH when larger
_WIDTH_FIELD = re.compile(r"(^|_)(hidden|intermediate|dim|dims|size|sizes|channels|d_model|d_ff|ffn_dim|width)($|_)")
#: ... unless they name one of these (a kernel of 3, a patch of 16, a window of 7, a vocabulary)
_NOT_A_WIDTH = re.compile(r"kernel|stride|patch|window|vocab|max_|position|token|pool|bucket|chunk|group|length|seed")
_LAYER_FIELD = re.compile(r"^(num_hidden_layers|num_layers|n_layers|n_layer|num_blocks|encoder_layers|decoder_layers"
                          r"|num_encoder_layers|num_decoder_layers)$")
_HEAD_FIELD = re.compile(r"^(num_attention_heads|num_heads|n_head|n_heads|encoder_attention_heads"
                         r"|decoder_attention_heads)$")
_KV_FIELD = re.compile(r"^(num_key_value_heads|num_kv_heads|n_kv_heads)$")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def config_parameter(owner: type) -> inspect.Parameter | None:
    """The required ``config`` parameter of ``owner.__init__``, if it has one."""
    try:
        params = list(inspect.signature(owner.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return None
    for param in params:
        if param.name == "config" and param.default is inspect.Parameter.empty:
            return param
    return None


def _imported_config_names(module: Any) -> list[tuple[str, str, int]]:
    """``(name, from_module, level)`` for every ``...Config`` name the module's file imports."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name.endswith("Config"):
                    out.append((alias.asname or alias.name, node.module or "", node.level))
    return out


def _resolve_import(module: Any, name: str, from_module: str, level: int) -> Any:
    """The class ``from <from_module> import <name>`` names, imported relative to ``module``."""
    value = getattr(module, name, None)
    if inspect.isclass(value):
        return value
    package = getattr(module, "__package__", None) or ""
    try:
        target = importlib.util.resolve_name("." * level + from_module, package) if level else from_module
        value = getattr(importlib.import_module(target), name, None)
    except (ImportError, ValueError, AttributeError):
        return None
    return value if inspect.isclass(value) else None


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a.lower(), b.lower()):
        if x != y:
            break
        n += 1
    return n


def config_class(owner: type, param: inspect.Parameter) -> type | None:
    """The config class for ``owner(config=...)``: the parameter's annotation when it names a
    class, else the ``...Config`` the owner's file imports (the one whose name shares the longest
    prefix with the owner's, ``Wav2Vec2EncoderLayer`` -> ``Wav2Vec2Config``)."""
    module = sys.modules.get(owner.__module__)
    annotation = param.annotation
    if annotation is inspect.Parameter.empty:
        annotation = None
    if inspect.isclass(annotation):
        return annotation
    if isinstance(annotation, str):
        name = annotation.strip("'\"").split("|")[0].strip().rsplit(".", 1)[-1]
        found = getattr(module, name, None)
        if inspect.isclass(found):
            return found
    if module is None:
        return None
    candidates = _imported_config_names(module)
    if isinstance(annotation, str):  # an annotation naming a class only imported under TYPE_CHECKING
        candidates = [c for c in candidates if c[0] == annotation.strip("'\"")] or candidates
    ranked = sorted(candidates, key=lambda c: -_common_prefix(c[0], owner.__name__))
    for name, from_module, level in ranked:
        cls = _resolve_import(module, name, from_module, level)
        if cls is not None:
            return cls
    return None


def _fields(config: Any) -> dict[str, Any]:
    try:
        return {k: v for k, v in vars(config).items() if not k.startswith("_")}
    except TypeError:
        return {}


def small_overrides(defaults: dict[str, Any]) -> dict[str, Any]:
    """The size fields of a config's defaults, made small and consistent with each other."""
    out: dict[str, Any] = {}
    heads = next((v for k, v in defaults.items() if _HEAD_FIELD.match(k) and _is_int(v)), None)
    for key, value in defaults.items():
        if _LAYER_FIELD.match(key) and _is_int(value) and value > 1:
            out[key] = 1
        elif _HEAD_FIELD.match(key) and _is_int(value) and value > HEADS:
            out[key] = HEADS
        elif _KV_FIELD.match(key) and _is_int(value) and heads:
            new_heads = min(heads, HEADS)
            out[key] = new_heads if value >= heads else next(d for d in (2, 1) if new_heads % d == 0 and d <= value)
        elif key == "head_dim" and _is_int(value):
            out[key] = WIDTH // HEADS
        elif key == "vocab_size" and _is_int(value) and value > VOCAB:
            ids = [v for k, v in defaults.items() if k.endswith("token_id") and _is_int(v)]
            out[key] = max([VOCAB, *(i + 1 for i in ids)])
        elif key.startswith("max_position") and _is_int(value) and value > MAX_POSITIONS:
            out[key] = MAX_POSITIONS
        elif _WIDTH_FIELD.search(key) and not _NOT_A_WIDTH.search(key):
            target = INTERMEDIATE if "intermediate" in key or "ffn" in key or "d_ff" in key else WIDTH
            if _is_int(value) and value > target:
                out[key] = target
            elif isinstance(value, (list, tuple)) and value and all(_is_int(v) for v in value):
                if any(v > target for v in value):
                    out[key] = type(value)(min(v, target) for v in value)
    return out


def small_config(cls: type) -> tuple[Any, str]:
    """``cls`` built with its defaults, its size fields made small; and how (for ``inputs``)."""
    default = cls()
    overrides = small_overrides(_fields(default))
    try:
        accepted = inspect.signature(cls.__init__).parameters
    except (TypeError, ValueError):
        accepted = {}
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values())
    passed = {k: v for k, v in overrides.items() if k in accepted or takes_any}
    config = None
    if passed:
        try:
            config = cls(**passed)
        except Exception:  # a field the class derives and will not take: set them on the defaults
            config = None
    if config is None:
        config = default
        passed = {}
        for key, value in overrides.items():
            try:
                setattr(config, key, value)
                passed[key] = value
            except Exception:
                continue
    if getattr(config, "_attn_implementation", "unset") is None:
        try:  # a standalone attention module dispatches on it; eager is what every torch runs
            config = cls(**passed, attn_implementation="eager")
        except Exception:
            pass
    shown = ", ".join(f"{k}={v!r}" for k, v in list(passed.items())[:6])
    more = f", +{len(passed) - 6} more" if len(passed) > 6 else ""
    return config, f"{cls.__name__}({shown}{more})"
