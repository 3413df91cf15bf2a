"""The recorder behind ``zlint record`` and ``pytest --zlint-record``: which lines ran and which sizes
each function's parameters held, written as a workload file (format: docs/workload.md).

It is a ``sys.settrace`` hook (Python 3.11 has no ``sys.monitoring``), so every Python call pays a
call into it; the rest is kept off the hot path:

- a code object's file is judged once (stdlib, zlint, torch's own packages and non-files are
  out);
  an excluded code costs one dict lookup per call and gets no line tracing;
- a wanted code is line-traced until every line it has was seen, or until its calls stop finding
  new lines: after ``QUIET_CALLS`` calls without a new line only every ``SAMPLE_EVERY``-th call
  is traced (a branch that a later size takes is still found, most of the time, and tracing
  resumes in full when it is), and a function's call that runs ``QUIET_LINES`` known lines in a
  row (a hot loop) stops being traced, the limit doubling for its next calls;
- parameter values are reduced to small hashable keys (a shape, an int) kept in a set per
  parameter, folded into per-dim summaries only when the set grows or the file is written.

Torch is never imported here: a tensor is an instance of ``sys.modules["torch"].Tensor``, looked
up once the program has imported torch itself.
"""

from __future__ import annotations

import dis
import json
import os
import platform
import re
import sys
import sysconfig
import threading
from collections.abc import Iterable
from importlib.util import find_spec
from itertools import islice
from types import CodeType, FrameType
from typing import Any

from zlint.core.atomic import atomic_write
from zlint.core.walks import reach

FORMAT = 1
#: distinct sizes kept per dim (and int values per parameter); the smallest are kept, so that
#: whether a dim reached 0 or 1 survives the cap
MAX_SIZES = 64
#: keys kept per dict parameter
MAX_KEYS = 32
#: items of one list/tuple read per call: a long list of tensors costs no more than this many
MAX_ITEMS = 64
#: distinct raw observations per parameter held before they are folded into the summary
FOLD_AT = 256
#: calls of a code object in a row that found no new line before line tracing turns to sampling
QUIET_CALLS = 6
#: once sampling, one call in this many is line-traced
SAMPLE_EVERY = 32
#: known lines in a row after which one call stops being line-traced (a hot loop): a loop over
#: transformers' 700 model names at import ran 185k known lines before this was cut from 2000
QUIET_LINES = 500

# code flags (inspect.CO_*), not imported from inspect: it is slow to import and we need four
_CO_OPTIMIZED, _CO_VARARGS, _CO_VARKEYWORDS = 0x1, 0x4, 0x8
_CO_RESUMABLE = 0x20 | 0x80 | 0x200  # generator, coroutine, async generator
_UNSEEN = object()
_SEQUENCE, _MAPPING = "s", "m"


#: torch's own packages, and those only torch's internals run (symbolic shapes, kernels): code no
#: one lints for their own model, into which importing torch alone makes some 75 thousand calls
#: (sympy's dispatch and assumptions) that would each have their parameters read
TORCH_PACKAGES = ("torch", "functorch", "torchgen", "sympy", "mpmath", "triton")


def default_exclusions() -> list[str]:
    """Directories not recorded unless ``--source`` names them: the standard library (but not the
    site-packages inside it), zlint itself, and :data:`TORCH_PACKAGES`."""
    paths = sysconfig.get_paths()
    roots = {os.path.realpath(paths[name]) for name in ("stdlib", "platstdlib") if name in paths}
    roots.add(os.path.realpath(os.path.dirname(os.path.dirname(__file__))))  # the zlint package
    for package in (*TORCH_PACKAGES, *torch_requirements()):
        roots.update(package_dirs(package))
    return sorted(roots)


def torch_requirements() -> list[str]:
    """The top-level modules of what the installed torch requires, at any depth (jinja2 and
    markupsafe, networkx, sympy and mpmath, filelock, fsspec, setuptools, typing_extensions): only
    torch's internals run them, and a workload that listed their files would be mostly theirs.
    Read from the packages' metadata, without importing anything; none without torch."""
    from importlib import metadata

    def required(name: str) -> list[str]:
        try:
            requires = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            return []
        # `sympy>=1.13.3`, `jinja2`; not `pyyaml; extra == "pyyaml"` (an extra the user asks for)
        return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0] for r in requires if "extra ==" not in r]

    modules: set[str] = set()
    for name in reach(["torch"], required):
        if name == "torch":
            continue
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            continue
        for file in files:  # the sources of a package's directory, or a module's, at the top
            if file.suffix == ".py" and file.parts:
                module = file.parts[0] if len(file.parts) > 1 else file.stem
                if module.isidentifier() and module != "__pycache__":
                    modules.add(module)
    return sorted(modules)


def package_dirs(name: str) -> list[str]:
    """Where the top-level package ``name`` lives (a plain module: its file), found without
    importing it."""
    try:
        spec = find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    locations = list(spec.submodule_search_locations or [])
    if not locations and spec.origin and os.path.isfile(spec.origin):
        locations = [spec.origin]
    return [os.path.realpath(location) for location in locations]


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _Param:
    """What one parameter held over all calls: the summary of each kind it was seen as.

    A value is one key: an int; a tensor's shape; ``("s", len, shapes)`` for a list/tuple of
    tensors; ``("m", ((key, value key), ...))`` for a dict with str keys."""

    __slots__ = ("ranks", "dims", "values", "lens", "items", "keys", "capped", "ceiling")

    def __init__(self) -> None:
        self.ranks: set[int] = set()
        self.dims: list[set[int]] = []
        self.values: set[int] = set()
        self.lens: set[int] = set()
        self.items: _Param | None = None
        self.keys: dict[str, _Param] = {}
        self.capped = False
        #: id of a pruned set of sizes -> the largest size it keeps
        self.ceiling: dict[int, int] = {}

    def add(self, key: Any) -> None:
        if type(key) is int:
            self._keep(self.values, key)
        elif type(key) is tuple and key and key[0] == _SEQUENCE:
            self.lens.add(key[1])
            if key[2]:
                if self.items is None:
                    self.items = _Param()
                for shape in key[2]:
                    self.items.add(shape)
        elif type(key) is tuple and key and key[0] == _MAPPING:
            for name, value in key[1]:
                record = self.keys.get(name)
                if record is None:
                    if len(self.keys) >= MAX_KEYS:
                        self.capped = True
                        continue
                    record = self.keys[name] = _Param()
                record.add(value)
        else:  # a shape (torch.Size or tuple); sizes that are not plain ints (symbolic) are skipped
            sizes = tuple(key)
            if not all(type(size) is int for size in sizes):
                return
            self.ranks.add(len(sizes))
            while len(self.dims) < len(sizes):
                self.dims.append(set())
            for dim, size in zip(self.dims, sizes):
                self._keep(dim, size)

    def _keep(self, sizes: set[int], size: int) -> None:
        if size in sizes or (self.capped and size > self.ceiling.get(id(sizes), size)):
            return  # known, or beyond the smallest MAX_SIZES of a capped set
        sizes.add(size)
        if len(sizes) > 2 * MAX_SIZES:  # prune now and then, not at every add
            kept = sorted(sizes)[:MAX_SIZES]
            sizes.clear()
            sizes.update(kept)
            self.capped = True
            self.ceiling[id(sizes)] = kept[-1]

    def merge(self, other: _Param) -> None:
        self.ranks |= other.ranks
        while len(self.dims) < len(other.dims):
            self.dims.append(set())
        for mine, theirs in zip(self.dims, other.dims):
            mine |= theirs
        self.values |= other.values
        self.lens |= other.lens
        if other.items is not None:
            if self.items is None:
                self.items = _Param()
            self.items.merge(other.items)
        for name, record in other.keys.items():
            if name in self.keys:
                self.keys[name].merge(record)
            elif len(self.keys) < MAX_KEYS:
                self.keys[name] = record
            else:
                self.capped = True
        self.capped |= other.capped

    def to_json(self) -> dict[str, Any] | None:
        """The record of the kind this parameter held (tensor, else a list/tuple of tensors, else a
        dict, else an int: the first of those it ever held), or None when it held none of them."""
        capped = self.capped
        record: dict[str, Any]
        if self.ranks:
            dims = []
            for sizes in self.dims:
                capped |= len(sizes) > MAX_SIZES
                dims.append(sorted(sizes)[:MAX_SIZES])
            record = {"kind": "tensor", "ranks": sorted(self.ranks), "dims": dims}
        elif self.items is not None and (items := self.items.to_json()) is not None:
            capped |= items.get("capped", False)
            record = {"kind": "sequence", "len": sorted(self.lens), "items": items}
        elif self.keys:
            keys = {name: value.to_json() for name, value in sorted(self.keys.items())}
            keys = {name: value for name, value in keys.items() if value is not None}
            if not keys:
                return None
            capped |= any(value.get("capped", False) for value in keys.values())
            record = {"kind": "mapping", "keys": keys}
        elif self.values:
            capped |= len(self.values) > MAX_SIZES
            record = {"kind": "int", "values": sorted(self.values)[:MAX_SIZES]}
        else:
            return None
        if capped:
            record["capped"] = True
        return record


def observe(value: Any, tensor: type | None) -> Any:
    """The key of ``value`` (see :class:`_Param`), or None when it is none of the recorded kinds.
    May raise (a tensor whose shape cannot be read): the caller skips the value then."""
    kind = type(value)
    if kind is int:
        return value
    if tensor is None:  # torch not imported yet: no tensors, so nothing else is recorded
        return None
    if kind is tensor or isinstance(value, tensor):
        return value.shape
    if kind is list or kind is tuple:
        shapes = []
        for item in value[:MAX_ITEMS]:
            if not isinstance(item, tensor):
                return None
            shapes.append(item.shape)
        return (_SEQUENCE, len(value), tuple(shapes))
    if kind is dict:
        entries = []
        # a bounded look: a dict of thousands of other things costs no more than a small one
        for name, item in islice(value.items(), 4 * MAX_KEYS):
            if type(name) is str and type(item) is not dict:
                entry = observe(item, tensor)
                if entry is not None:
                    entries.append((name, entry))
                    if len(entries) > MAX_KEYS:
                        break
        return (_MAPPING, tuple(entries)) if entries else None
    return None


def parameter_names(code: CodeType) -> tuple[str, ...]:
    """The names of ``code``'s parameters, ``*args`` and ``**kwargs`` included."""
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & _CO_VARARGS) + bool(code.co_flags & _CO_VARKEYWORDS)
    return tuple(name for name in code.co_varnames[:count] if not name.startswith("."))


def _first_resume(code: CodeType) -> int:
    """The offset at which a new generator/coroutine frame starts: a 'call' event at a later offset
    is a resumption, not a new call. (3.10 has no RESUME: a new frame's f_lasti is -1 there.)"""
    for instruction in dis.get_instructions(code):
        if instruction.opname == "RESUME":
            return instruction.offset
    return -1


class _Code:
    """What ran of one code object."""

    __slots__ = (
        "code", "path", "calls", "last_new", "quiet", "quiet_limit", "lines", "unseen", "complete", "params",
        "fresh_at", "local", "function",
    )

    def __init__(self, code: CodeType, path: str) -> None:
        self.code = code  # held: ids of live code objects are never reused
        self.path = path
        self.calls = 0
        self.last_new = 0  # the call that last found a new line
        self.quiet = 0  # known lines in a row in the current traced call
        self.lines: set[int] = set()
        # the lines a 'line' event can name: those of the code's instructions but its first line's
        # RESUME (no event there, unless a statement shares the line)
        self.unseen = {line for _, _, line in code.co_lines() if line is not None} - {code.co_firstlineno}
        self.complete = False  # every line seen: nothing left to find, no more line tracing
        # a def (not a module, class body, lambda or comprehension) is a function of the file
        self.function = bool(code.co_flags & _CO_OPTIMIZED) and not code.co_name.startswith("<")
        # code that runs once (a module, a class body) is never cut short: its later lines would be
        # lost for good; a function's limit doubles at each cut, so that a call whose loop is
        # longer than the limit still reaches the lines after the loop within a few calls
        self.quiet_limit = QUIET_LINES if code.co_flags & _CO_OPTIMIZED else sys.maxsize
        names = parameter_names(code) if self.function else ()
        if names[:1] in (("self",), ("cls",)):  # the object of a method: a module, hardly ever a tensor
            names = names[1:]
        #: (name, raw keys seen, folded summary) per parameter
        self.params: list[tuple[str, set[Any], _Param]] = [(name, set(), _Param()) for name in names]
        self.fresh_at = _first_resume(code) if code.co_flags & _CO_RESUMABLE else None
        self.local = self._line_tracer()

    def _line_tracer(self):
        lines = self.lines

        unseen = self.unseen

        def local(frame: FrameType, event: str, arg: Any):
            if event == "line":
                line = frame.f_lineno
                if line in lines:
                    self.quiet += 1
                    if self.quiet > self.quiet_limit:
                        self.quiet_limit *= 2
                        # this frame only; the next call is judged afresh. (Returning None alone
                        # would not do: CPython keeps a frame's tracer when a 'line' event returns None)
                        frame.f_trace = None
                        return None
                else:
                    lines.add(line)
                    self.last_new = self.calls
                    self.quiet = 0
                    unseen.discard(line)
                    if not unseen:
                        self.complete = True
                        frame.f_trace = None
                        return None
            return local

        return local

    def folded(self) -> list[tuple[str, _Param]]:
        for _, seen, summary in self.params:
            fold(seen, summary)
        return [(name, summary) for name, _, summary in self.params]


def fold(seen: set[Any], summary: _Param) -> None:
    """Move the raw keys of ``seen`` into ``summary``."""
    keys = list(seen)  # a copy first: another thread may add while this one folds
    seen.difference_update(keys)
    for key in keys:
        summary.add(key)


class Recorder:
    """Record what runs between :meth:`start` and :meth:`stop` in this thread and in threads started
    meanwhile. ``sources``: only files under these paths (files or directories); otherwise every
    file but ``exclude`` (default: :func:`default_exclusions`) and non-files (``<string>``)."""

    def __init__(self, sources: Iterable[str] = (), exclude: Iterable[str] | None = None) -> None:
        self.sources = [os.path.realpath(path) for path in sources]
        self.exclude = list(default_exclusions() if exclude is None else exclude)
        self._codes: dict[int, _Code | None] = {}  # id(code) -> its record, None: not recorded
        self._held: list[CodeType] = []  # excluded codes, kept alive so that their ids stay theirs
        self._wanted: dict[str, str | None] = {}  # co_filename -> realpath, None: not recorded
        self._tensor: list[type | None] = [None]
        self._previous: tuple[Any, Any] | None = None

    def wanted(self, filename: str) -> str | None:
        """The real path under which ``filename``'s code is recorded, or None."""
        if filename.startswith("<"):
            return None
        path = os.path.realpath(filename)
        if self.sources:
            return path if any(_under(path, root) for root in self.sources) else None
        for root in self.exclude:
            if _under(path, root):
                rest = path[len(root):].lstrip(os.sep).split(os.sep, 1)[0]
                if rest not in ("site-packages", "dist-packages"):  # a venv inside the stdlib dir
                    return None
        return path

    def _first_sight(self, code: CodeType) -> _Code | None:
        filename = code.co_filename
        path = self._wanted.get(filename, _UNSEEN)
        if path is _UNSEEN:
            path = self._wanted[filename] = self.wanted(filename)
        record = _Code(code, path) if path is not None else None
        if record is None:
            self._held.append(code)
        self._codes[id(code)] = record
        return record

    def _hook(self):
        """The global trace function; closures, not methods, for fewer lookups per call."""
        codes = self._codes
        first_sight = self._first_sight
        tensor_type = self._tensor
        modules = sys.modules

        def call(frame: FrameType, event: str, arg: Any):
            try:
                record = codes[id(frame.f_code)]
            except KeyError:
                try:
                    record = first_sight(frame.f_code)
                except Exception:  # noqa: BLE001 - an error in a trace hook would end tracing and reach the program
                    return None
            if record is None:
                return None
            if record.fresh_at is None or frame.f_lasti <= record.fresh_at:  # not a generator resuming
                record.calls += 1
                if record.params:
                    tensor = tensor_type[0]
                    if tensor is None:
                        # the module's dict, not getattr: while torch is importing, a missing
                        # attribute would go through torch's module __getattr__ at every call
                        tensor = tensor_type[0] = getattr(modules.get("torch"), "__dict__", {}).get("Tensor")
                    values = frame.f_locals
                    for name, seen, summary in record.params:
                        try:
                            value = values.get(name)
                            kind = type(value)
                            # the common kinds inline: a call into observe() costs as much again
                            if kind is tensor:
                                key = value.shape
                            elif kind is int:
                                key = value
                            elif value is None or kind is bool or kind is str or kind is float:
                                continue
                            else:
                                key = observe(value, tensor)
                                if key is None:
                                    continue
                            if key not in seen:
                                seen.add(key)
                                if len(seen) > FOLD_AT:
                                    fold(seen, summary)
                        except Exception:  # noqa: BLE001, S112 - a value we cannot read is not recorded
                            continue
            if record.complete or (record.calls - record.last_new > QUIET_CALLS and record.calls % SAMPLE_EVERY):
                return None
            record.quiet = 0
            return record.local

        return call

    def start(self) -> None:
        hook = self._hook()
        self._previous = (sys.gettrace(), threading.gettrace() if hasattr(threading, "gettrace") else None)
        threading.settrace(hook)
        sys.settrace(hook)

    def stop(self) -> None:
        if self._previous is not None:
            sys.settrace(self._previous[0])
            threading.settrace(self._previous[1])
            self._previous = None

    def workload(self, command: list[str], cwd: str) -> dict[str, Any]:
        """The workload file's contents for what was recorded so far."""
        files: dict[str, tuple[set[int], dict[tuple[str, int], list[Any]]]] = {}
        for record in list(self._codes.values()):
            if record is None:
                continue
            lines, functions = files.setdefault(record.path, (set(), {}))
            lines |= set(record.lines)
            if not (record.function and record.calls):
                continue
            code = record.code
            key = (getattr(code, "co_qualname", code.co_name), code.co_firstlineno)
            # one function can have several code objects (a file run as __main__ and imported)
            entry = functions.setdefault(key, [0, {}])
            entry[0] += record.calls
            for name, summary in record.folded():
                entry[1].setdefault(name, _Param()).merge(summary)
        torch = sys.modules.get("torch")
        version = getattr(torch, "__version__", None)
        return {
            "zlint_workload": FORMAT,
            "command": list(command),
            "cwd": cwd,
            "python": platform.python_version(),
            "torch": None if version is None else str(version),
            "files": {
                path: {
                    "lines": sorted(lines),
                    "functions": [
                        {"name": name, "line": line, "calls": calls, "params": _params_json(params)}
                        for (name, line), (calls, params) in sorted(functions.items(), key=lambda i: (i[0][1], i[0][0]))
                    ],
                }
                for path, (lines, functions) in sorted(files.items())
            },
        }


def _params_json(params: dict[str, _Param]) -> dict[str, Any]:
    records = {name: summary.to_json() for name, summary in params.items()}
    return {name: record for name, record in records.items() if record is not None}


def compile_off() -> None:
    """Run ``torch.compile``'d code eagerly while recording: dynamo runs a compiled frame's code in
    place of its lines, so the trace hook would see none of them, and a workload would say that
    compiled code never ran. The setting is read when torch is imported; set it too when the
    program's torch is already loaded (``pytest --zlint-record`` with a conftest that imports it)."""
    os.environ["TORCH_COMPILE_DISABLE"] = "1"
    config = sys.modules.get("torch._dynamo.config")
    if config is not None:
        config.disable = True


def write_workload(path: str, workload: dict[str, Any]) -> None:
    """Write ``workload`` to ``path`` atomically, creating its directory."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    atomic_write(path, (json.dumps(workload) + "\n").encode("utf-8"))
