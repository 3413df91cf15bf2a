"""Per-version facts about ``torch.compile`` and torch's namespaces, without importing torch.

The facts (compile modes, backends, inductor option keys, ``torch.compile`` parameters, attribute
names under ``torch``, ``torch.compiler``, ``torch._dynamo`` and the two config modules) ship as
small JSON files in ``zlint/data/torch/<version>.json``, written by ``scripts/gen_torch_data.py``
from a live torch. The target version is the ``torch-version`` setting, else the installed torch's
version read from its package metadata (torch is never imported), else the newest version we have
data for. A version without data falls back to the nearest one, and says so once.

:func:`extract` and :func:`cross_check` take a live torch module as an argument; only the generator
script and ``--verify`` call them, so this module itself never imports torch.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import pkgutil
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "torch"
SCHEMA = 1

#: the namespaces whose attribute names are recorded (and checked by ZL415)
NAMESPACES = ("torch", "torch.compiler", "torch._dynamo", "torch._dynamo.config", "torch._inductor.config")
#: dynamo limits whose defaults the data records (ZL417 compares against them)
LIMIT_KEYS = ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit", "accumulated_recompile_limit")
#: inductor option value types we can check from a literal (others are skipped, like torch does)
SIMPLE_TYPES = {"bool": bool, "int": int, "float": float, "str": str}
#: Measured on torch 2.13 (CPU): int()/float()/math.* on sizes and squeeze() without a dim trace
#: symbolically, with no guard. Older releases guarded on them (PRs #95479, #94365); which release
#: changed each is not measured here, so ZL207 and ZL208 apply to every release before the pinned one.
SYMBOLIC_SINCE = (2, 13, 0)

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?")
#: the whole of a version a user may write: a release with optional PEP 440 pre-, post-, dev- and
#: local parts ("2.13", "2.13.0", "2.14.0rc1", "2.15.0.dev20250101", "2.13.0+cpu")
_SETTING = re.compile(r"^\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?(?:\+[A-Za-z0-9.]+)?$")
#: torch.compile, what zlint's rules are about, first shipped in torch 2.0
FIRST_SUPPORTED = (2, 0, 0)


class TorchVersionError(ValueError):
    """A ``torch-version`` value that is not a version like ``2.13`` or ``2.13.0``."""


def parse_version(text: str) -> tuple[int, int, int]:
    """``"2.13.0+cpu"`` -> ``(2, 13, 0)``; local and pre-release suffixes are ignored."""
    match = _VERSION.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise TorchVersionError(f"not a torch version: {text!r} (expected e.g. '2.13' or '2.13.0')")
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch or 0)


def format_version(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def validate_torch_version(value: Any) -> str:
    """The normalized ``torch-version`` setting (``"2.13"`` -> ``"2.13.0"``); raises on a value
    that is not a version, or a version outside :func:`supported_versions`."""
    if not isinstance(value, str):
        raise TorchVersionError(f"torch-version must be a string like '2.13', not {value!r}")
    if not _SETTING.match(value.strip()):
        raise TorchVersionError(f"not a torch version: {value!r} (expected e.g. '2.13' or '2.13.0')")
    version = parse_version(value)
    first, last_major = supported_versions()
    if not first <= version < (last_major + 1, 0, 0):
        shipped = ", ".join(format_version(v) for v in known_versions())
        raise TorchVersionError(
            f"torch-version {value!r} is not supported: zlint supports torch {first[0]}.{first[1]} to "
            f"{last_major}.x (facts shipped for {shipped}; other releases use the nearest)"
        )
    return format_version(version)


def supported_versions() -> tuple[tuple[int, int, int], int]:
    """The oldest torch the setting may name, and the newest major release: torch.compile's
    first release, up to the major version of the newest shipped facts (a new major version may
    change what the facts mean, so its nearest data would be a guess)."""
    versions = known_versions()
    return FIRST_SUPPORTED, max(versions)[0] if versions else FIRST_SUPPORTED[0]


def known_versions() -> list[tuple[int, int, int]]:
    """Versions with shipped data, oldest first."""
    out = []
    for path in DATA_DIR.glob("*.json"):
        try:
            out.append(parse_version(path.stem))
        except TorchVersionError:
            continue
    return sorted(out)


@functools.lru_cache(maxsize=1)
def installed_torch_version() -> str | None:
    """The installed torch's version from its package metadata; torch itself is not imported.
    Looked up once per process: a metadata lookup costs more than linting a small file."""
    from importlib import metadata

    try:
        text = metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None
    except Exception:  # broken metadata must not break linting
        return None
    try:
        return format_version(parse_version(text))
    except TorchVersionError:
        return None


def target_torch_version(settings: Any = None) -> str:
    """The torch version rules target: the setting, else installed torch, else the newest known."""
    configured = getattr(settings, "torch_version", None) if settings is not None else None
    if configured:
        return validate_torch_version(configured)
    installed = installed_torch_version()
    if installed:
        return installed
    versions = known_versions()
    return format_version(versions[-1]) if versions else "0.0.0"


def target_version(settings: Any = None) -> tuple[int, int, int]:
    """:func:`target_torch_version` as a tuple, worked out once per configured value: rules and
    their gates ask for every file and function."""
    return _parsed_target(getattr(settings, "torch_version", None) or None)


@functools.lru_cache(maxsize=16)
def _parsed_target(configured: str | None) -> tuple[int, int, int]:
    return parse_version(validate_torch_version(configured) if configured else target_torch_version())


@dataclass(frozen=True)
class TorchData:
    """The facts for one torch version (see :func:`extract` for what each field holds)."""

    version: str
    #: the version asked for, when it had no data and this is the nearest one
    requested: str | None
    compile_parameters: frozenset[str]
    compile_positional: int
    modes: dict[str, dict[str, Any]]
    backends: frozenset[str]
    #: inductor option key -> simple type name ("bool", "int", "float", "str") or "" (unchecked)
    inductor_options: dict[str, str]
    #: keys ``torch.compile`` pops from ``options`` before inductor sees them
    compile_only_options: frozenset[str]
    limits: dict[str, int]
    names: dict[str, frozenset[str]]
    #: the ``math`` functions dynamo evaluates on a symbolic size without specializing it (torch's
    #: SymNode implements them: ``ceil``, ``floor``, ``trunc``, ``sqrt``, ``cos``, ...); any other
    #: ``math`` function, and every numpy function, gets the concrete int and guards on it. None:
    #: the file predates the key (the loader borrows the nearest version's)
    symbolic_math: frozenset[str] | None = None
    #: the arguments torch takes as a plain number, not a symbolic size (their ATen schema types
    #: them ``int``, ``int[2]``, ``float?``, never ``SymInt``/``Scalar``): a size passed there is
    #: made concrete, one graph per size. ``"torch.linspace"``, ``"torch.nn.functional.avg_pool2d"``,
    #: ``"Tensor.unfold"`` -> argument name -> its position in a Python call (-1: by keyword only).
    #: None: the file predates the key (the loader borrows the nearest version's)
    concrete_arguments: dict[str, dict[str, int]] | None = None

    def has_option(self, key: str) -> bool:
        """torch accepts ``-`` for ``_`` in option keys."""
        return key in self.compile_only_options or key.replace("-", "_") in self.inductor_options

    def option_type(self, key: str) -> str:
        return self.inductor_options.get(key.replace("-", "_"), "")

    def cudagraph_modes(self) -> frozenset[str]:
        return frozenset(mode for mode, opts in self.modes.items() if opts.get("triton.cudagraphs"))


def _from_json(raw: dict[str, Any], requested: str | None) -> TorchData:
    return TorchData(
        version=raw["torch"],
        requested=requested,
        compile_parameters=frozenset(raw["compile_parameters"]),
        compile_positional=raw["compile_positional"],
        modes=raw["modes"],
        backends=frozenset(raw["backends"]),
        inductor_options=raw["inductor_options"],
        compile_only_options=frozenset(raw["compile_only_options"]),
        limits=raw["dynamo_limits"],
        names={ns: frozenset(names) for ns, names in raw["names"].items()},
        symbolic_math=frozenset(raw["symbolic_math"]) if "symbolic_math" in raw else None,
        concrete_arguments=raw.get("concrete_arguments"),
    )


#: keys added to the data after its first files: a file made before one borrows it from the
#: nearest version that has it (field name, JSON key, how the loader reads it)
_BORROWED = (
    ("symbolic_math", frozenset),
    ("concrete_arguments", dict),
)


def nearest_version(wanted: tuple[int, int, int], versions: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """The closest known version by release (major.minor), then patch; ties go to the newer."""

    def distance(v: tuple[int, int, int]) -> tuple[int, int]:
        return (abs((v[0] * 1000 + v[1]) - (wanted[0] * 1000 + wanted[1])), abs(v[2] - wanted[2]))

    return min(versions, key=lambda v: (distance(v), tuple(-x for x in v)))


_warned: set[str] = set()


@functools.lru_cache(maxsize=8)
def _load(version: str) -> TorchData:
    versions = known_versions()
    if not versions:
        raise FileNotFoundError(f"zlint ships no torch data in {DATA_DIR}")
    wanted = parse_version(version)
    chosen = wanted if wanted in versions else nearest_version(wanted, versions)
    name = format_version(chosen)
    raw = json.loads((DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))
    data = _from_json(raw, None if chosen == wanted else format_version(wanted))
    for key, read in _BORROWED:  # a file made before the key: the nearest version that has it
        others = [v for v in versions if v != chosen]
        while others and getattr(data, key) is None:
            near = nearest_version(chosen, others)
            others.remove(near)
            borrowed = json.loads((DATA_DIR / f"{format_version(near)}.json").read_text(encoding="utf-8"))
            if key in borrowed:
                data = dataclasses.replace(data, **{key: read(borrowed[key])})
    return data


def torch_data(version: str | None = None, settings: Any = None) -> TorchData:
    """The facts for ``version`` (default: :func:`target_torch_version`), nearest if none shipped.

    A fallback prints one warning line to stderr per process and version.
    """
    version = version or target_torch_version(settings)
    data = _load(format_version(parse_version(version)))
    if data.requested and data.requested not in _warned:
        _warned.add(data.requested)
        print(
            f"zlint: warning: no torch data for torch {data.requested}; using the nearest, {data.version}",
            file=sys.stderr,
        )
    return data


# -- generating and checking the data from a live torch (generator script and --verify only) -----


def _option_type(config: ModuleType, key: str) -> str:
    get_type = getattr(config, "get_type", None)
    if get_type is None:
        return ""
    try:
        declared = get_type(key)
    except Exception:
        return ""
    for name, typ in SIMPLE_TYPES.items():
        if declared is typ:
            return name
    return ""


def _namespace_names(module: ModuleType) -> set[str]:
    # a config module is a module subclass: its methods (patch, ...) live on the class
    names = set(dir(module)) | set(dir(type(module)))
    if hasattr(module, "__path__"):
        names |= {info.name for info in pkgutil.iter_modules(module.__path__)}
    get_config_copy = getattr(module, "get_config_copy", None)
    if callable(get_config_copy):
        # _config also holds aliases and deprecated keys, which attribute access accepts
        keys = set(get_config_copy()) | set(getattr(module, "_config", None) or ())
        names |= {key.split(".", 1)[0] for key in keys}
    names |= set(getattr(module, "_lazy_modules", ()) or ())
    names |= set(getattr(module, "_deprecated_attrs", {}) or {})
    return names


def extract(torch: ModuleType) -> dict[str, Any]:
    """The facts of the live ``torch`` passed in, in the shipped JSON shape."""
    modules = {ns: importlib.import_module(ns) for ns in NAMESPACES}
    inductor_config = modules["torch._inductor.config"]
    dynamo_config = modules["torch._dynamo.config"]
    inductor = importlib.import_module("torch._inductor")
    dynamo = modules["torch._dynamo"]

    signature = inspect.signature(torch.compile)
    positional = sum(
        1
        for p in signature.parameters.values()
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )
    try:
        source = inspect.getsource(torch.compile)
    except (OSError, TypeError):
        source = ""
    popped = sorted(set(re.findall(r"options\.pop\(\s*[\"'](\w+)[\"']", source)))

    modes = {mode: dict(sorted(opts.items())) for mode, opts in inductor.list_mode_options().items()}
    try:
        backends = dynamo.list_backends(exclude_tags=())
    except TypeError:  # older signature
        backends = dynamo.list_backends(None)
    options = {key: _option_type(inductor_config, key) for key in inductor_config.get_config_copy()}
    limits = {key: getattr(dynamo_config, key) for key in LIMIT_KEYS if hasattr(dynamo_config, key)}
    version = format_version(parse_version(torch.__version__))
    # keyword drift of the dim-marking API (maybe_mark_dynamic gained min=/max= in 2.15)
    marking = {
        name: sorted(inspect.signature(getattr(dynamo, name)).parameters)
        for name in ("mark_dynamic", "maybe_mark_dynamic", "mark_static")
        if callable(getattr(dynamo, name, None))
    }
    # the math functions a SymNode answers symbolically: its magic methods and its _sym_* ops
    import math

    sym_node = importlib.import_module("torch.fx.experimental.sym_node")
    symbolic_math = sorted(
        name for name in dir(math)
        if not name.startswith("_") and (
            hasattr(sym_node.SymNode, f"_sym_{name}") or name in getattr(sym_node, "METHOD_TO_OPERATOR", {})
        )
    )
    return {
        "schema": SCHEMA,
        "torch": version,
        "symbolic_math": symbolic_math,
        "concrete_arguments": concrete_arguments(torch),
        "compile_parameters": sorted(signature.parameters),
        "compile_positional": positional,
        "modes": modes,
        "backends": sorted(backends),
        "inductor_options": dict(sorted(options.items())),
        "compile_only_options": popped,
        "dynamo_limits": limits,
        "marking_parameters": marking,
        "names": {ns: sorted(_namespace_names(mod)) for ns, mod in modules.items()},
    }


#: a schema type torch takes as a plain number: ``int``, ``int[2]``, ``float?`` (``SymInt`` and
#: ``Scalar`` take a symbolic size as it is)
_PLAIN_NUMBER = re.compile(r"^(int|float)(\[\d*\])?\??$")
#: arguments that name dims or diagonals: a size passed there is a mistake of another kind
_DIM_ARGUMENTS = frozenset({
    "dim", "dims", "dimension", "dim0", "dim1", "dim2", "start_dim", "end_dim", "source", "destination",
    "axis", "axis0", "axis1", "offset",
})


def _schema_arguments(schema: str) -> tuple[str, list[tuple[str, str, bool]]]:
    """``aten::linspace.out(Scalar start, ..., *, Tensor(a!) out) -> ...`` -> (``linspace``, [(name,
    type, keyword only), ...])."""
    name, _, rest = schema.partition("(")
    parts, depth, current = [], 1, ""
    for char in rest:
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if depth == 0:
            break
        if char == "," and depth == 1:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    arguments, keyword_only = [], False
    for part in filter(None, parts):
        if part == "*":
            keyword_only = True
            continue
        kind, _, argument = part.split("=", 1)[0].strip().rpartition(" ")
        arguments.append((argument, kind, keyword_only))
    return name.split("::", 1)[-1].split(".", 1)[0], arguments


def concrete_arguments(torch: ModuleType) -> dict[str, dict[str, int]]:
    """The arguments of torch's public functions and tensor methods that every ATen schema of
    the op types as a plain number (:attr:`TorchData.concrete_arguments`), with their positions in
    a Python call: a Python wrapper's own signature where it has one, else the schema's (a
    method's receiver is the schema's ``self``)."""
    overloads: dict[str, list[list[tuple[str, str, bool]]]] = {}
    for schema in torch._C._jit_get_all_schemas():
        text = str(schema)
        if text.startswith("aten::"):
            op, arguments = _schema_arguments(text)
            overloads.setdefault(op, []).append(arguments)
    functional = importlib.import_module("torch.nn.functional")
    out: dict[str, dict[str, int]] = {}
    for op, forms in sorted(overloads.items()):
        if op.startswith("_"):
            continue
        kinds: dict[str, set[str]] = {}
        places: dict[str, set[int]] = {}
        for arguments in forms:
            for index, (argument, kind, keyword_only) in enumerate(arguments):
                kinds.setdefault(argument, set()).add(kind)
                places.setdefault(argument, set()).add(-1 if keyword_only else index)
        plain = {
            argument: places[argument].pop() if len(places[argument]) == 1 else -1
            for argument, found in kinds.items()
            if argument not in _DIM_ARGUMENTS and argument not in ("self", "input", "out")
            and all(_PLAIN_NUMBER.match(kind) for kind in found)
        }
        if not plain:
            continue
        receiver = all(arguments[:1] and arguments[0][0] == "self" for arguments in forms)
        for spelling, owner, shift in (
            (f"torch.{op}", torch, 0),
            (f"torch.nn.functional.{op}", functional, 0),
            (f"Tensor.{op}", torch.Tensor if receiver else None, 1),
        ):
            function = getattr(owner, op, None) if owner is not None else None
            if function is None:
                continue
            try:
                parameters = list(inspect.signature(function).parameters.values())
            except (TypeError, ValueError):  # a builtin: the schema's order
                parameters = None
            if parameters is not None and {p.kind for p in parameters} == {
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD
            }:
                parameters = None  # `(*args, **kwargs)`: a dispatching wrapper, the schema's order
            if parameters is None:
                places_here = {a: p - shift if p >= shift else -1 for a, p in plain.items()}
            else:  # a Python wrapper: its own names and order
                names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
                keywords = {p.name for p in parameters if p.kind is not p.VAR_POSITIONAL}
                places_here = {a: names.index(a) if a in names else -1 for a in plain if a in keywords}
            if places_here:
                out[spelling] = dict(sorted(places_here.items()))
    return out


def dumps(data: dict[str, Any]) -> str:
    """The shipped file's text: stable and diff-friendly, one name list per line."""
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def _diff(label: str, live: Any, shipped: Any, limit: int = 8) -> list[str]:
    if live == shipped:
        return []
    if isinstance(live, (list, dict)) and isinstance(shipped, (list, dict)):
        live_keys, shipped_keys = set(live), set(shipped)
        out = []
        missing = sorted(live_keys - shipped_keys)
        extra = sorted(shipped_keys - live_keys)
        if missing:
            shown = ", ".join(map(str, missing[:limit]))
            out.append(f"{label}: live torch has {len(missing)} not in the data: {shown}")
        if extra:
            out.append(f"{label}: the data has {len(extra)} not in live torch: {', '.join(map(str, extra[:limit]))}")
        if isinstance(live, dict) and isinstance(shipped, dict):
            changed = sorted(k for k in live_keys & shipped_keys if live[k] != shipped[k])
            for key in changed[:limit]:
                out.append(f"{label}[{key!r}]: live {live[key]!r}, data {shipped[key]!r}")
        return out or [f"{label}: live {live!r}, data {shipped!r}"]
    return [f"{label}: live {live!r}, data {shipped!r}"]


def cross_check(live_torch_module: ModuleType) -> list[str]:
    """Mismatches between the shipped data and the live torch (empty when they agree)."""
    live = extract(live_torch_module)
    path = DATA_DIR / f"{live['torch']}.json"
    if not path.is_file():
        versions = known_versions()
        if not versions:
            return [f"no torch data shipped at all (live torch {live['torch']})"]
        near = format_version(nearest_version(parse_version(live["torch"]), versions))
        problems = [f"no data for torch {live['torch']}; compared with the nearest, {near}"]
        path = DATA_DIR / f"{near}.json"
    else:
        problems = []
    shipped = json.loads(path.read_text(encoding="utf-8"))
    for key in sorted(set(live) | set(shipped)):
        if key in ("torch", "schema") and problems:
            continue
        if key == "names":
            for ns in sorted(set(live.get(key, {})) | set(shipped.get(key, {}))):
                problems += _diff(f"names[{ns}]", live[key].get(ns, []), shipped[key].get(ns, []))
        else:
            problems += _diff(key, live.get(key), shipped.get(key))
    return problems
