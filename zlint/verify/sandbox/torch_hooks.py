"""Every place where ``--verify`` relies on torch internals: private names and dynamo's English
log/error texts. Nothing else in :mod:`zlint.verify` reaches into ``torch._*`` or parses dynamo's
messages; a torch release that moves one of them breaks only this module, and :func:`self_test`
notices before any function is verified.

Each touchpoint has an availability check (:data:`TOUCHPOINTS`) and fails in one of two ways:
``None``/empty where losing it only loses detail (a plain guard text, a recompile reason), or
:class:`HookError` where a verdict would be built on it. Callers turn a :class:`HookError` into an
UNVERIFIABLE report, never into evidence.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


class HookError(Exception):
    """One of zlint's own hooks into torch failed (a private name moved, a message changed)."""


# -- the private names ----------------------------------------------------------------------------

#: (what it is, how to reach it): checked by :func:`missing`
TOUCHPOINTS: tuple[tuple[str, str], ...] = (
    ("torch._guards.detect_fake_mode", "torch._guards:detect_fake_mode"),
    ("torch._guards.CompileContext.current_compile_id", "torch._guards:CompileContext.current_compile_id"),
    ("torch._dynamo.reset", "torch._dynamo:reset"),
    ("torch._dynamo.maybe_mark_dynamic", "torch._dynamo:maybe_mark_dynamic"),
    ("torch._dynamo.decorators.mark_unbacked", "torch._dynamo.decorators:mark_unbacked"),
    ("torch._dynamo.backends.registry.lookup_backend", "torch._dynamo.backends.registry:lookup_backend"),
    (
        "torch._dynamo.convert_frame.get_and_maybe_log_recompilation_reasons",
        "torch._dynamo.convert_frame:get_and_maybe_log_recompilation_reasons",
    ),
    ("torch.fx.experimental._config.backed_size_oblivious", "torch.fx.experimental._config:backed_size_oblivious"),
)

#: dynamo's graph-break log (``torch._logging`` artifact ``graph_breaks``)
GRAPH_BREAK_LOG = "torch._dynamo.symbolic_convert.__graph_breaks"
#: dynamo's frame-conversion log: "hit config.recompile_limit (8)" is a warning there
CONVERT_FRAME_LOG = "torch._dynamo.convert_frame"
#: the name dynamo gives the function that resumes a frame after a graph break
RESUME_PREFIX = "torch_dynamo_resume_in"
_RECOMPILE_HOOK = "get_and_maybe_log_recompilation_reasons"


def _resolve(where: str) -> Any:
    import importlib

    module_name, _, attr_path = where.partition(":")
    value: Any = importlib.import_module(module_name)
    for part in attr_path.split("."):
        value = getattr(value, part)
    return value


def missing() -> list[str]:
    """The touchpoints this torch lacks (empty: all present)."""
    out = []
    for label, where in TOUCHPOINTS:
        try:
            _resolve(where)
        except Exception:
            out.append(label)
    return out


def reset() -> None:
    """Forget every compiled graph (between sweeps)."""
    import torch._dynamo

    torch._dynamo.reset()


def backend(name: str) -> Callable:
    """The compiler behind a backend name (``eager``: the traced graph itself)."""
    if name == "eager":
        return lambda gm, example_inputs: gm.forward
    try:
        from torch._dynamo.backends.registry import lookup_backend
    except Exception as exc:
        raise HookError(f"torch._dynamo.backends.registry.lookup_backend: {exc}") from exc
    return lookup_backend(name)


def mark_unbacked(tensor: Any, dim: int) -> None:
    try:
        from torch._dynamo.decorators import mark_unbacked as mark
    except Exception as exc:
        raise HookError(f"torch._dynamo.decorators.mark_unbacked: {exc}") from exc
    mark(tensor, dim)


def maybe_mark_dynamic(tensor: Any, dim: int) -> None:
    import torch._dynamo

    mark = getattr(torch._dynamo, "maybe_mark_dynamic", None)
    if mark is None:
        raise HookError("torch._dynamo.maybe_mark_dynamic is missing")
    mark(tensor, dim)


@contextlib.contextmanager
def backed_size_oblivious() -> Iterator[None]:
    """``torch.fx.experimental._config.patch(backed_size_oblivious=True)``; HookError where absent."""
    try:
        import torch.fx.experimental._config as fx_config

        if not hasattr(fx_config, "backed_size_oblivious"):
            raise AttributeError("no backed_size_oblivious")
        patch = fx_config.patch(backed_size_oblivious=True)
    except Exception as exc:
        raise HookError(f"torch.fx.experimental._config.backed_size_oblivious: {exc}") from exc
    with patch:
        yield


def current_compile_id() -> str | None:
    """The ``frame/compile`` id dynamo is compiling now (inside a backend), as reasons name it."""
    try:
        import torch._guards

        compile_id = torch._guards.CompileContext.current_compile_id()
    except Exception as exc:
        raise HookError(f"torch._guards.CompileContext.current_compile_id: {exc}") from exc
    if compile_id is None:
        return None
    return f"{compile_id.frame_id}/{compile_id.frame_compile_id}"


def shape_env(example_inputs: Any) -> Any:
    """The ShapeEnv of the fake inputs a backend received (None: no symbolic shapes)."""
    try:
        from torch._guards import detect_fake_mode

        fake_mode = detect_fake_mode(example_inputs)
    except Exception as exc:
        raise HookError(f"torch._guards.detect_fake_mode: {exc}") from exc
    return getattr(fake_mode, "shape_env", None)


@dataclass(frozen=True)
class ShapeGuard:
    """One shape guard: its sympy text, where dynamo says the user added it, and the torch frame
    that asked for it (inside an op's meta function/decomposition, or dynamo's own ``if``)."""

    expr: str
    user_loc: str
    framework_loc: str


def shape_guards(env: Any) -> list[ShapeGuard]:
    """The guards a ShapeEnv holds. HookError when their layout is not what zlint reads."""
    out = []
    try:
        for guard in list(env.guards):
            sloc = guard.sloc
            user = getattr(sloc, "maybe_user_loc", None)
            out.append(ShapeGuard(str(guard.expr), str(user if user is not None else sloc),
                                  str(getattr(sloc, "framework_loc", "") or "")))
    except Exception as exc:
        raise HookError(f"ShapeEnv.guards: {type(exc).__name__}: {exc}") from exc
    return out


_SOURCE_SIZE = re.compile(r"^L\['([A-Za-z_]\w*)'\]\.size\(\)\[(\d+)\]$")
_SOURCE_LOCAL = re.compile(r"L\['([A-Za-z_]\w*)'\]")


def plain_source(name: str) -> str:
    """``L['x'].size()[0]`` -> ``x.size(0)``; ``L['self'].w`` -> ``self.w``."""
    found = _SOURCE_SIZE.match(name)
    if found:
        return f"{found.group(1)}.size({found.group(2)})"
    return _SOURCE_LOCAL.sub(r"\1", name).replace(".size()[", ".size(").replace("]", ")") if ".size()[" in name \
        else _SOURCE_LOCAL.sub(r"\1", name)


def symbol_names(env: Any) -> dict[str, str]:
    """Each size symbol's user-level name (``s77`` -> ``x.size(0)``); empty when unreadable
    (losing it only loses readability)."""
    out: dict[str, str] = {}
    try:
        for symbol, sources in dict(env.var_to_sources).items():
            if sources:
                name = sources[0].name
                out[str(symbol)] = plain_source(name() if callable(name) else str(name))
    except Exception:
        return {}
    return out


# -- recompile reasons ------------------------------------------------------------------------------


@contextlib.contextmanager
def recompile_reasons(on_reasons: Callable[[list[str], bool], None]) -> Iterator[bool]:
    """Call ``on_reasons(reasons, resumed)`` with each recompile's guard failures (one string per
    cache entry, ``"<compile id>: <failure>"``) while the block runs; ``resumed`` is True when the
    frame recompiling resumes after a graph break. Dynamo computes these reasons before every
    recompile but logs them only under ``TORCH_LOGS=recompiles``, so zlint wraps the private
    function that computes them. Yields whether it could listen (never raises)."""
    try:
        import torch._dynamo.convert_frame as convert_frame
    except Exception:
        yield False
        return
    real = getattr(convert_frame, _RECOMPILE_HOOK, None)
    if not callable(real):
        yield False
        return

    def reasons_(*args, **kwargs):
        reasons = real(*args, **kwargs)
        frame = args[1] if len(args) > 1 else kwargs.get("frame")
        resumed = RESUME_PREFIX in getattr(getattr(frame, "f_code", None), "co_name", "")
        try:  # callers record their own failures; none may break the user's run
            on_reasons([str(r) for r in reasons or ()], resumed)
        except Exception:
            pass
        return reasons

    setattr(convert_frame, _RECOMPILE_HOOK, reasons_)
    try:
        yield True
    finally:
        setattr(convert_frame, _RECOMPILE_HOOK, real)


# -- dynamo's texts -------------------------------------------------------------------------------

#: a failure of a cache entry whose size was static: ``tensor 'x' size mismatch at index 0.
#: expected 3, actual 5``
SIZE_MISMATCH = re.compile(r"tensor '([^']+)' size mismatch at index (\d+)\. expected (\d+), actual (\d+)")
#: dynamo's note on a guard it adds itself when a size is first read (0/1 specialization)
FRAMEWORK_SPECIALIZATION = "first use of this value"
def without_framework_specialization(failure: str) -> str:
    """A guard failure's text without the locations dynamo attributes to its own 0/1
    specialization (``... (user code shown is first use of this value ...) and <user guard>``);
    empty when nothing else is left."""
    if FRAMEWORK_SPECIALIZATION not in failure:
        return failure
    kept = [part for part in failure.split(") and ") if FRAMEWORK_SPECIALIZATION not in part]
    return " and ".join(kept)


USER_LOC = re.compile(r"(\S+):(\d+) in (\S+)")
FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_BREAK_AT = re.compile(r"in user code at (.+):(\d+)\n")
_CAUSED_BY = re.compile(r"Caused by: .*\((\S+):\d+ in (\w+)\)")
_YOU_MARKED = re.compile(r"(You marked .*? specialized it to be a constant \(-?\d+\))")


def split_reason(reason: str) -> tuple[str, str]:
    """``"0/3: Ne(s0, 1)  # ..."`` -> ``("0/3", "Ne(s0, 1)  # ...")``: the failing cache entry's
    compile id and what failed (empty id when dynamo's text has none)."""
    head, sep, text = reason.partition(": ")
    if sep and re.fullmatch(r"[!\w/\[\]]+", head):
        return head, text
    return "", reason


def graph_break_site(message: str) -> tuple[str, int] | None:
    """The ``(file, line)`` dynamo names as the user code of a graph break."""
    at = _BREAK_AT.search(message)
    return (at.group(1), int(at.group(2))) if at else None


def graph_break_reason(message: str) -> str:
    """The whole reason of a graph break in one line: dynamo's reason sentence plus its
    explanation, or, when the explanation is empty, the developer context that names the cause
    (``argument 'is_causal' must be bool, not SymBool``); boilerplate and tracebacks dropped."""
    body = message.split("Graph Break Reason:", 1)[-1]
    body = body.split("User code traceback", 1)[0].split("For more details about this graph break", 1)[0]
    reason, _, rest = body.partition("Explanation:")
    explanation, _, rest = rest.partition("Hint:")
    context = rest.split("Developer debug context:", 1)[1] if "Developer debug context:" in rest else ""
    parts = [_one_line(reason, skip_first=reason.strip().startswith("Encountered graph break")),
             _one_line(explanation)]
    if not parts[1]:
        parts.append(_one_line(context))
    text = ": ".join(p for p in parts if p)
    return text or "graph break"


def _one_line(chunk: str, skip_first: bool = False) -> str:
    lines = [line.strip() for line in chunk.splitlines() if line.strip()]
    if skip_first and len(lines) > 1:
        lines = lines[1:]
    return " ".join(line for line in lines if not FRAME.search(line)).rstrip(".: ")


def inside_torch(text: str) -> bool:
    """True when a data-dependent guard or failure came from inside a torch op, not from the
    user's own branch."""
    if "when making fake tensor call" in text:
        return True
    caused = _CAUSED_BY.search(text)
    # a user ``if`` on a size is evaluated by dynamo itself (symbolic_convert, variables/tensor.py);
    # an op runs through dynamo's run_node, and anything outside _dynamo/ is torch's own code
    if not caused:
        return False
    path, function = caused.groups()
    return function == "run_node" or not path.startswith("_dynamo/")


_FRAMEWORK_FRAME = re.compile(r"file (\S+?),? line \d+,? in (\w+)")


def guard_from_torch_op(framework_loc: str) -> bool:
    """A guard asked for by an op (dynamo's ``run_node`` running matmul, bmm, group_norm, t(), or
    torch code outside dynamo: meta functions, decompositions), not by dynamo evaluating the
    user's own ``if``/``range`` (``_dynamo/variables/...``)."""
    found = _FRAMEWORK_FRAME.search(framework_loc) or FRAME.search(framework_loc)
    if not found:
        return False
    path = found.group(1).replace("\\", "/")
    function = found.group(2) if found.re is _FRAMEWORK_FRAME else ""
    return function == "run_node" or ("/torch/" in path and "/torch/_dynamo/" not in path)


_REASON_FRAMEWORK = re.compile(r"\((\S+):\d+ in (\w+)\)\s*$")


def reason_from_torch_op(failure: str) -> bool:
    """A recompile reason whose guard an op asked for: dynamo ends each failure with the torch
    frame that added the guard (``(_dynamo/variables/tensor.py:2606 in evaluate_expr)`` for the
    user's own ``if``; ``_refs/``, ``_meta_registrations`` ... for an op)."""
    found = _REASON_FRAMEWORK.search(failure)
    return bool(found) and (found.group(2) == "run_node" or not found.group(1).startswith("_dynamo/"))


def classify_error(exc: BaseException) -> str:
    """``constraint``, ``data-dependent`` or ``error`` for an exception a compiled call raised."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc)
    if "ConstraintViolationError" in names or "Constraints violated" in text:
        return "constraint"
    if "GuardOnDataDependentSymNode" in names or "data-dependent" in text or "DataDependent" in text:
        return "data-dependent"
    return "error"


def constraint_summary(text: str) -> str | None:
    """``You marked L['x'].size()[0] as dynamic but your code specialized it to be a constant (3)``."""
    found = _YOU_MARKED.search(text)
    return found.group(1).strip() if found else None


def user_stack_lines(text: str) -> list[tuple[str, int]]:
    """``(file, line)`` of each frame in an error's ``User stack:`` section."""
    if "User stack:" not in text:
        return []
    return [(path, int(n)) for path, n in FRAME.findall(text.split("User stack:", 1)[-1])]


def plain_stack_names(text: str, arg_names: list[str] | None = None) -> str:
    """Dynamo's internal names in a message made readable: ``L['x']`` -> ``x``, ``___stack0``
    (the n-th value on the interpreter stack; for a call, the n-th argument) -> the argument's name
    when known, else "an intermediate value"."""
    text = re.sub(r"\.size\(\)\[(\d+)\]", r".size(\1)", _SOURCE_LOCAL.sub(r"\1", text))

    def stack(found: re.Match) -> str:
        index = int(found.group(1))
        if arg_names and index < len(arg_names):
            return arg_names[index]
        return "an intermediate value"

    return re.sub(r"___stack(\d+)", stack, text)


_LIMIT = re.compile(r"recompile_limit \((\d+)\)")
_A_CONSTANT = re.compile(r"a constant \(-?\d+\)")


def recompile_limit_hit(logger: str, message: str) -> str | None:
    """The limit (``"8"``, or ``"?"`` when unnamed) when a log record says dynamo hit it, else None."""
    if logger != CONVERT_FRAME_LOG or "recompile_limit" not in message:
        return None
    found = _LIMIT.search(message)
    return found.group(1) if found else "?"


def without_constant(text: str) -> str:
    """``... specialized it to be a constant (3)`` -> ``... a constant``: one detail for every size."""
    return _A_CONSTANT.sub("a constant", text)
