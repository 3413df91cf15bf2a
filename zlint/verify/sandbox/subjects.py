"""Turn ``(file, qualified name)`` into something to call and inputs to call it with.

Runs in a worker: it imports the user's module (project root and ``src/`` on ``sys.path``),
finds the function or ``nn.Module`` method, and takes inputs from a registered example, else from
jaxtyping-style annotations, else from how the function uses its parameters.
"""

from __future__ import annotations

import ast
import copy
import importlib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import zlint.verify.examples as examples
import zlint.verify.sandbox.configs as configs
from zlint.verify.sandbox.layer_fit import first_that_runs, fit_layers
from zlint.verify.synth import (
    FIXED,
    Plan,
    caller_attributes,
    find_function,
    plan_inputs,
    swept_value,
    through_sizes,
)
from zlint.verify.thresholds import around, compared_names, known_ints, open_thresholds, state_reads


class Unverifiable(Exception):
    """No honest verification is possible; ``str()`` says why."""


def project_root(path: Path) -> Path:
    """The nearest ancestor holding ``pyproject.toml``/``setup.py``/``.git``, else the file's dir."""
    for parent in path.parents:
        if any((parent / marker).exists() for marker in ("pyproject.toml", "setup.py", "setup.cfg", ".git")):
            return parent
    return path.parent


def import_paths(path: Path) -> list[str]:
    """``sys.path`` entries that make ``path`` importable: the project root, ``src/`` and the
    directory above the file's top-level package (or the file's own directory)."""
    root = project_root(path)
    top = path.parent
    while (top / "__init__.py").exists() and top.parent != top:
        top = top.parent
    entries = [str(top), str(root)]
    if (root / "src").is_dir():
        entries.append(str(root / "src"))
    return list(dict.fromkeys(entries))


def _module_name(path: Path) -> str:
    parts = [path.stem]
    parent = path.parent
    while (parent / "__init__.py").exists() and parent.parent != parent:
        parts.insert(0, parent.name)
        parent = parent.parent
    return ".".join(p for p in parts if p != "__init__")


def import_file(path: str | Path) -> Any:
    """Import a file as a module, reusing ``sys.modules`` when that file is already imported."""
    path = Path(path).resolve()
    for entry in reversed(import_paths(path)):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    name = _module_name(path)
    module = sys.modules.get(name)
    if module is not None and os.path.realpath(getattr(module, "__file__", "") or "") == str(path):
        return module
    if module is None:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and os.path.realpath(spec.origin) == str(path):
            return importlib.import_module(name)
    # a name clash (two ``model.py``): load the file under a private name
    private = f"_zlint_verify_.{abs(hash(str(path)))}.{path.stem}".replace(".", "_")
    spec = importlib.util.spec_from_file_location(private, path)
    if spec is None or spec.loader is None:
        raise Unverifiable(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[private] = module
    spec.loader.exec_module(module)
    return module


def make_from_plan(plan: Plan, obj: Any = None) -> Callable[[int], tuple[tuple, dict]]:
    """``make_inputs(n)`` for a synthesized input plan: the call's arguments for size ``n``
    (used by the worker's subjects and by :func:`zlint.verify.check`); ``obj`` is the built
    module whose attributes ``attr`` parameters name."""
    import torch

    def make(n: int) -> tuple[tuple, dict]:
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        skipped = False  # after a parameter left at its default, the rest go by name
        for p in plan.params:
            if p.kind == "default":
                skipped = True
                continue
            if p.kind == "attr":
                value: Any = obj
                for part in p.value.split(".")[1:]:
                    value = getattr(value, part)
            elif p.kind == "value":
                value = swept_value(p.value, n) if p.swept else p.value
            else:
                shape = [
                    n * plan.units.get(lab, 1) if lab in plan.swept else (int(lab) if lab.isdigit() else FIXED)
                    for lab in p.labels
                ]
                if p.dtype == "int":
                    value = torch.randint(0, FIXED, shape)
                elif p.dtype == "bool":
                    value = torch.rand(shape) > 0.5
                else:
                    value = torch.randn(shape)
            if p.keyword_only or skipped:
                kwargs[p.name] = value
            else:
                args.append(value)
        return tuple(args), kwargs

    return make


#: required ``__init__`` parameters that scale a layer (channels, widths, heads) get FIXED, the
#: size of every input dim the sweep does not drive, so a built layer's widths match its inputs
_WIDTH_WORDS = ("dim", "channel", "chs", "feature", "planes", "inp", "oup", "hidden", "width", "heads", "size")
#: required ``__init__`` parameters whose neutral value is 1 (a factor or step, not a width)
_UNIT_WORDS = ("stride", "group", "dilation", "ratio", "expand", "scale", "rate")
#: ... and those whose neutral value is 0 (a dropout or stochastic-depth probability)
_ZERO_WORDS = ("drop", "prob")


def _guessed_value(param: inspect.Parameter) -> tuple[bool, Any]:
    """A value for one required ``__init__`` parameter, from its annotation and name, if any."""
    annotation = param.annotation
    name = param.name.lower()
    zero = any(w in name for w in _ZERO_WORDS)
    value = 0 if zero else 1 if any(w in name for w in _UNIT_WORDS) else FIXED
    if annotation is inspect.Parameter.empty:
        if value == FIXED and not any(w in name for w in _WIDTH_WORDS):
            return False, None  # an unannotated ``block`` or ``layers`` is not a number to guess
        return True, value
    kind = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
    if kind == "bool":
        return True, False
    if kind in ("int", "float"):
        return True, float(value) if kind == "float" else value
    return False, None


def _guessed_arguments(owner: type) -> dict[str, Any] | None:
    """Arguments for ``owner(...)`` when only ints, floats and bools without defaults are missing
    (``BasicBlock(inplanes, planes)`` -> ``inplanes=4, planes=4``); None when anything else is."""
    try:
        signature = inspect.signature(owner.__init__)
    except (TypeError, ValueError):
        return None
    guessed = {}
    for name, param in list(signature.parameters.items())[1:]:
        if param.default is not inspect.Parameter.empty or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        known, value = _guessed_value(param)
        if not known:
            return None
        guessed[name] = value
    return guessed or None


def _optional_widths(owner: type) -> dict[str, Any]:
    """``__init__`` widths left at None (``channels=None``, ``out_channels=None``): a branch of the
    constructor may need them (``if use_conv: nn.Conv2d(channels, ...)``); each gets FIXED."""
    try:
        params = list(inspect.signature(owner.__init__).parameters.values())[1:]
    except (TypeError, ValueError):
        return {}
    return {
        p.name: FIXED for p in params
        if p.default is None and any(w in p.name.lower() for w in _WIDTH_WORDS)
        and not any(w in p.name.lower() for w in (*_UNIT_WORDS, *_ZERO_WORDS))
    }


def reads_training(node: ast.AST) -> bool:
    """Whether a method reads ``self.training`` (``if self.training and x.size(0) > 1:``): its
    branches exist only in training mode, so it is verified there."""
    return any(
        isinstance(n, ast.Attribute) and n.attr == "training" and isinstance(n.value, ast.Name) and n.value.id == "self"
        for n in ast.walk(node)
    )


def _set_mode(obj: Any, training: bool) -> None:
    """Eval mode, or training mode with dropout layers still off (their outputs are random)."""
    if not (hasattr(obj, "eval") and callable(obj.eval)):
        return
    if not training:
        obj.eval()  # dropout off: compiled and eager outputs must be comparable
        return
    obj.train()
    for module in obj.modules():
        if "dropout" in type(module).__name__.lower():
            module.eval()


#: a module with more parameters than this is not built: ``--verify`` needs a small example
MAX_PARAMETERS = 50_000_000
#: a module built from its defaults with more parameters than this is first tried with its
#: depth-like ``__init__`` defaults cut to 1 (``depth=((1, 3, 1), ...)`` -> ``((1, 1, 1), ...)``):
#: the same code on every line, in a fraction of the compile time
SCALE_ABOVE = 5_000_000
_DEPTH_WORDS = re.compile(r"^(depth|depths|num_layers|n_layers|layers|num_blocks|blocks|num_stages)$")


class _TooLarge(Exception):
    pass


def _count(obj: Any) -> int:
    """Elements of a module's parameters and buffers (a pos-embed table is a buffer)."""
    parameters, buffers = getattr(obj, "parameters", None), getattr(obj, "buffers", None)
    if not (callable(parameters) and callable(buffers)):
        return 0
    return sum(p.numel() for p in parameters()) + sum(b.numel() for b in buffers())


def _on_meta(owner: type, kwargs: dict[str, Any]) -> int | None:
    """Parameters of ``owner(**kwargs)`` built on the meta device (no memory, no init), or None
    when it cannot be built there (constructors that read tensor values)."""
    import torch

    try:
        with torch.device("meta"):
            return _count(owner(**kwargs))
    except Exception:
        return None


def _shallower(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return min(value, 1)
    if isinstance(value, (tuple, list)):
        return type(value)(_shallower(v) for v in value)
    return value


def _depth_defaults(owner: type) -> dict[str, Any]:
    """``__init__`` defaults that count blocks or layers, cut to 1 each; empty when there are none."""
    try:
        params = inspect.signature(owner.__init__).parameters.values()
    except (TypeError, ValueError):
        return {}
    out = {}
    for param in params:
        if _DEPTH_WORDS.match(param.name) and param.default is not inspect.Parameter.empty:
            small = _shallower(param.default)
            if small != param.default:
                out[param.name] = small
    return out


def _candidates(owner: type, flags: dict[str, Any] | None = None) -> Iterator[tuple[dict[str, Any], str]]:
    """Ways to build ``owner``, each ``(kwargs, shown)`` with ``flags`` (the ``__init__`` values
    the flagged lines' branches need, ``compress_time=True``) added: no arguments, the required
    ints guessed, a small config (transformers), in that order."""
    flags = flags or {}
    shown_flags = ", ".join(f"{k}={v!r}" for k, v in flags.items())
    for kwargs, shown in _candidate_arguments(owner):
        yield {**kwargs, **flags}, ", ".join(t for t in (shown, shown_flags) if t)


def _candidate_arguments(owner: type) -> Iterator[tuple[dict[str, Any], str]]:
    yield {}, ""
    guessed = _guessed_arguments(owner)
    if guessed is not None:
        yield guessed, ", ".join(f"{k}={v!r}" for k, v in guessed.items())
    widths = _optional_widths(owner)
    if widths:
        filled = {**(guessed or {}), **widths}
        yield filled, ", ".join(f"{k}={v!r}" for k, v in filled.items())
    param = configs.config_parameter(owner)
    if param is None:
        return
    cls = configs.config_class(owner, param)
    if cls is None:
        return
    try:
        config, shown = configs.small_config(cls)
    except Exception:  # the config class itself needs arguments
        return
    kwargs: dict[str, Any] = {param.name: config}
    texts = [f"{param.name}={shown}"]
    for name, other in list(inspect.signature(owner.__init__).parameters.items())[1:]:
        if name == param.name or other.default is not inspect.Parameter.empty:
            continue
        if other.kind in (other.VAR_POSITIONAL, other.VAR_KEYWORD):
            continue
        known, value = _guessed_value(other)
        if not known:
            return
        kwargs[name] = value
        texts.append(f"{name}={value!r}")
    yield kwargs, ", ".join(texts)


def _sized(owner: type, kwargs: dict[str, Any], shown: str) -> tuple[dict[str, Any], str]:
    """``kwargs`` with depth-like defaults cut when the module they build is large; raises
    _TooLarge when even that is over MAX_PARAMETERS."""
    count = _on_meta(owner, kwargs)
    if count is None or count <= SCALE_ABOVE:
        return kwargs, shown
    cut = {k: v for k, v in _depth_defaults(owner).items() if k not in kwargs}
    if cut:
        smaller = _on_meta(owner, {**kwargs, **cut})
        if smaller is not None and smaller < count:
            extra = ", ".join(f"{k}={v!r}" for k, v in cut.items())
            kwargs, shown, count = {**kwargs, **cut}, ", ".join(t for t in (shown, extra) if t), smaller
    if count > MAX_PARAMETERS:
        raise _TooLarge(f"{count:,}")
    return kwargs, shown


def _instance(
    owner: type, registered: examples.Example | None, training: bool = False, flags: dict[str, Any] | None = None,
) -> tuple[Any, str]:
    """The object whose method is verified, and how it was built (empty: a factory or ``owner()``);
    ``flags`` are ``__init__`` values the flagged lines' branches need."""
    built = ""
    if registered is not None and registered.factory is not None:
        obj = registered.factory()
    else:
        obj, first_error = None, None
        for kwargs, shown in _candidates(owner, flags):
            try:
                kwargs, shown = _sized(owner, kwargs, shown)
                obj = owner(**kwargs)
            except _TooLarge as exc:
                raise Unverifiable(
                    f"module too large to build ({owner.__name__}({shown}): {exc} parameters and buffers); "
                    "register a smaller example with a factory"
                ) from None
            except Exception as exc:
                first_error = first_error or exc
                continue
            count = _count(obj)  # built for real when the meta device could not count it
            if count > MAX_PARAMETERS:
                raise Unverifiable(
                    f"module too large to build ({owner.__name__}({shown}): {count:,} parameters and buffers); "
                    "register a smaller example with a factory"
                )
            built = f"{owner.__name__}({shown})" if shown else ""
            break
        if obj is None:
            exc = first_error
            text = str(exc).splitlines()[0][:100] if exc is not None and str(exc) else ""
            raise Unverifiable(
                f"method of {owner.__name__}, which {owner.__name__}() cannot build ({type(exc).__name__}: "
                f"{text}); register an example with a factory"
            )
    _set_mode(obj, training and registered is None)
    return obj, built


class _Located:
    """A function or method found in its file's ``ast`` and in the imported module."""

    __slots__ = (
        "file", "tree", "node", "first", "last", "module", "registered", "is_method", "call", "built", "training",
    )


def _locate(path: str, qualname: str, flags: dict[str, Any] | None = None) -> _Located:
    """Parse ``path``, find ``qualname`` in it, import the module and get the callable (a bound
    method of an instance from the registered factory for methods). Raises Unverifiable."""
    found = _Located()
    found.file = file = Path(path).resolve()
    try:
        found.tree = tree = ast.parse(file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise Unverifiable(f"cannot read {path}: {exc}") from None
    found.node = node = find_function(tree, qualname)
    if node is None:
        raise Unverifiable(
            f"{qualname} is not a module-level function or a method (nested functions cannot be reached)"
        )
    found.first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    found.last = node.end_lineno or node.lineno
    found.module = import_file(file)
    parts = qualname.split(".")
    owner: Any = found.module
    for part in parts[:-1]:
        owner = getattr(owner, part, None)
        if not inspect.isclass(owner):
            raise Unverifiable(f"{qualname}: {part} is not a class at import time")
    if not hasattr(owner, parts[-1]):
        raise Unverifiable(f"{qualname} is not defined after importing {file.name}")
    found.registered = registered = examples.lookup(str(file), qualname)
    found.is_method = inspect.isclass(owner) and not isinstance(
        inspect.getattr_static(owner, parts[-1]), (staticmethod, classmethod)
    )
    found.built, found.training = "", False
    if found.is_method:
        found.training = registered is None and reads_training(node)
        obj, found.built = _instance(owner, registered, found.training, flags)
        if found.training:
            found.built = f"{found.built or owner.__name__ + '()'} in training mode"
        found.call = getattr(obj, parts[-1])
    else:
        found.call = getattr(owner, parts[-1])
    return found


def build(
    path: str, qualname: str, focus_lines: list[int], sizes: list[int] | None = None,
    choices: dict[str, dict[str, Any]] | None = None,
):
    """A :class:`zlint.verify.sandbox.probe.Subject` for ``qualname`` in ``path``, plus where inputs came
    from. With synthesized inputs, the subject also says which flagged comparisons the sweep
    (``sizes``) may never flip (:func:`zlint.verify.thresholds.open_thresholds`). ``choices`` are
    what the branches around the flagged lines need (:func:`zlint.verify.flow.choices`): values
    of the function's parameters, and of the ``__init__`` parameters behind ``self`` flags."""
    from zlint.verify.sandbox.probe import Subject, normalize_call

    choices = choices or {}
    found = _locate(path, qualname, choices.get("init"))
    registered, call = found.registered, found.call

    # a function decorated with @torch.compile: verify what it wraps
    call = getattr(call, "_torchdynamo_orig_callable", call)

    open_lines: dict[int, str] = {}
    swept_sizes: list[int] | None = None
    swept_values: tuple[str, ...] = ()
    if registered is not None:
        make = lambda n: normalize_call(registered.make_inputs(n))  # noqa: E731
        source, detail = "registered", "registered example"
    else:
        helper_lines = [n for n in focus_lines if not found.node.lineno <= n <= (found.node.end_lineno or n)]
        through, untraced = through_sizes(found.tree, found.node, helper_lines, found.is_method)
        if helper_lines and not through and len(helper_lines) == len(focus_lines):
            # run only for helpers' lines, none of whose sizes its inputs drive: each helper is
            # verified on its own, with inputs that reach its lines
            raise Unverifiable(next(iter(untraced.values()), (
                f"{qualname}'s inputs drive none of the sizes its helpers' flagged lines read: "
                "they are verified on their own")))
        plan = plan_inputs(
            found.node, focus_lines, found.is_method, known_ints(found.tree, found.node), choices.get("params"),
            through, caller_attributes(found.tree, qualname) if found.is_method else {},
        )
        if plan.problem:
            raise Unverifiable(plan.problem)
        _resolve_units(plan, getattr(call, "__self__", None), known_ints(found.tree, found.node))
        unfitted = None
        if found.is_method:
            unfitted = copy.deepcopy(plan)
            fit_layers(plan, getattr(call, "__self__", None))
        obj = getattr(call, "__self__", None)
        made = lambda variant: make_from_plan(variant, obj)  # noqa: E731
        plan = first_that_runs(plan, call, made, unfitted=unfitted)
        make = make_from_plan(plan, obj)
        swept_values = tuple(p.name for p in plan.params if p.kind == "value" and p.swept)
        source, detail = plan.source, plan.describe()
        if found.built:
            detail = f"{detail} on {found.built}"
        if not plan.fits:
            detail = f"each failed eagerly: {_first_few(plan.tried)}"
        elif plan.tried:
            detail = f"{detail} (tried first: {_first_few(plan.tried)})"
        # what the plan passes (``ss=(4, 4)``: ``ss[0]`` is 4) and the built module holds
        compared = compared_names(found.node, focus_lines)
        passed = {k: v for k, v in plan.known_values().items() if k in compared}
        state = {**passed, **_state_ints(getattr(call, "__self__", None), found.node, focus_lines)}
        extra = around(state.values(), sizes or ())
        if sizes and extra:
            swept_sizes = [*sizes, *extra]
        if sizes:
            open_lines = open_thresholds(
                found.tree, focus_lines, swept_sizes or sizes, found.node, plan.size_names, state,
            )
        open_lines.update(untraced)
    subject = Subject(
        call, make, str(found.file), found.first, found.last, qualname, open_thresholds=open_lines,
        random_outputs=found.training, swept_values=swept_values,
    )
    return subject, source, detail, (registered.sizes if registered else swept_sizes)


def _first_few(tried: list[str], shown: int = 3) -> str:
    """The first inputs tried, and how many more."""
    more = f"; +{len(tried) - shown} more" if len(tried) > shown else ""
    return "; ".join(tried[:shown]) + more


def _resolve_units(plan: Plan, obj: Any, known: dict[str, int]) -> None:
    """Swept dims the flagged lines count in a unit (``height = H // self.patch_size``) take sizes
    in that unit, read from the built module or a known int: ``H = 16 * n``, so ``height`` is
    ``n`` and a threshold on it (``self.height != height``) is crossed."""
    for label, source in plan.unit_sources.items():
        value = known.get(source)
        if value is None and source.startswith("self.") and obj is not None:
            value = getattr(obj, source[len("self."):], None)
        if value is None:
            try:
                value = ast.literal_eval(source)
            except ValueError:
                value = None
        if isinstance(value, int) and not isinstance(value, bool) and value > 1:
            plan.units[label] = value


def _state_ints(obj: Any, node: ast.AST, lines: list[int]) -> dict[str, int]:
    """The int values of the ``self.<attr>`` (and ``self.<attr>[i]``) the flagged lines compare
    sizes with, read from the built module (``self.grid_size = (14, 14)``)."""
    if obj is None:
        return {}
    out = {}
    for text in state_reads(node, lines):
        attr, _, index = text[len("self."):].partition("[")
        value = getattr(obj, attr, None)
        if index:
            try:
                value = value[int(index.rstrip("]"))] if isinstance(value, (tuple, list)) else None
            except (IndexError, ValueError):
                value = None
        if isinstance(value, int) and not isinstance(value, bool):
            out[text] = value
    return out


def load_examples(files: list[str]) -> list[str]:
    """Import examples files (registering their examples); returns one line per failure."""
    problems = []
    for name in files:
        try:
            import_file(name)
        except BaseException as exc:  # an examples file is user code too
            if isinstance(exc, KeyboardInterrupt):
                raise
            problems.append(f"{name}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}")
    return problems


def _compile_call_options(node: ast.AST) -> dict:
    """Literal keyword arguments of a ``torch.compile(...)`` decorator or call (``dynamic=False``)."""
    out: dict = {}
    if isinstance(node, ast.Call):
        for keyword in node.keywords:
            if keyword.arg:
                try:
                    out[keyword.arg] = ast.literal_eval(keyword.value)
                except ValueError:
                    pass
    return out


def _names_compile(node: ast.AST) -> bool:
    func = node.func if isinstance(node, ast.Call) else node
    return (isinstance(func, ast.Attribute) and func.attr == "compile") or (
        isinstance(func, ast.Name) and func.id == "compile"
    )


def compiled_globals(tree: ast.Module) -> dict[str, tuple[int, dict]]:
    """Module-level names bound to ``torch.compile`` results: ``@torch.compile`` functions and
    ``name = torch.compile(...)``; each with the line and the literal options of that compile."""
    out: dict[str, tuple[int, dict]] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if _names_compile(decorator):
                    out[node.name] = (decorator.lineno, _compile_call_options(decorator))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and _names_compile(node.value):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = (node.lineno, _compile_call_options(node.value))
    return out


def build_caller(path: str, qualname: str, sizes: list[int]):
    """What a call-site job runs: ``(call, calls, module, compiled_globals, first, last, source,
    detail, sizes)`` where ``calls`` is ``[(size or None, args, kwargs), ...]``."""
    from zlint.verify.sandbox.probe import normalize_call

    found = _locate(path, qualname)
    node, registered, call = found.node, found.registered, found.call
    sweep = list((registered.sizes if registered else None) or sizes)
    if registered is not None and registered.sweep:
        args, kwargs = normalize_call(registered.make_inputs(list(sweep)))
        calls = [(None, args, kwargs)]
        source, detail = "registered", "registered example (one call over the sweep)"
    elif registered is not None:
        calls = [(n, *normalize_call(registered.make_inputs(n))) for n in sweep]
        source, detail = "registered", "registered example (one call per size)"
    else:
        params = [
            a for a in [*node.args.posonlyargs, *node.args.args]
            if a.arg not in ("self", "cls") or not found.is_method
        ]
        required = len(params) - len(node.args.defaults)
        required += sum(1 for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is None)
        if required > 0:
            names = ", ".join(a.arg for a in params)
            raise Unverifiable(
                f"no inputs for the caller {qualname}({names}): its call sites run only when it is called; "
                f"register an example: zlint.verify.example({qualname}, lambda sizes: (...), sweep=True)"
            )
        calls = [(None, (), {})]
        source, detail = "synthesized", "no arguments needed"
    return call, calls, found.module, compiled_globals(found.tree), found.first, found.last, source, detail, sweep
