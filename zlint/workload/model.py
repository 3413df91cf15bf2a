"""Reading a workload file (written by ``zlint record``; format: docs/workload.md).

:func:`load_workload` validates the whole file up front, so that a bad one is one line
(:class:`WorkloadError`) before any linting, and then answers, per linted file:

- :meth:`Workload.ran`: did this line run? (None: the file was not recorded at all);
- :meth:`Workload.function_at`: what did the function defined at this line receive?

A linted path is matched to a recorded one by its real path, else by the longest path suffix of
at least two components that only one recorded file has: a recording made with the package
installed in site-packages then matches the same package linted from a source checkout
(``.../site-packages/transformers/models/llama/modeling_llama.py`` and
``src/transformers/models/llama/modeling_llama.py`` share four components).
"""

from __future__ import annotations

import ast
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

FORMAT = 1
KINDS = ("tensor", "int", "sequence", "mapping")


class WorkloadError(Exception):
    """A workload file that cannot be used: missing, unreadable, not a workload, or malformed. Its
    message is one line naming the file."""


@dataclass(frozen=True)
class ParamRecord:
    """What one parameter held over the recorded calls.

    ``kind``: ``tensor`` (``ranks``, ``dims``: per dim the sorted distinct sizes, following the
    highest rank seen), ``int`` (``values``), ``sequence`` (a list/tuple of tensors: ``lengths``,
    and ``items``, all its tensors merged) or ``mapping`` (a dict: ``keys``, one record per key).
    ``capped``: more distinct sizes (or keys) were seen than the file keeps (the smallest are kept).
    """

    kind: str
    ranks: tuple[int, ...] = ()
    dims: tuple[tuple[int, ...], ...] = ()
    values: tuple[int, ...] = ()
    lengths: tuple[int, ...] = ()
    items: ParamRecord | None = None
    keys: Mapping[str, ParamRecord] = field(default_factory=dict)
    capped: bool = False

    def sizes(self, dim: int | None = None) -> tuple[int, ...]:
        """The sizes seen: of tensor dim ``dim`` (negative counts from the highest rank's end; a dim
        never seen gives ``()``); an int parameter's values (``dim`` is not used); a sequence's
        items' dim; a mapping's dim over all its keys."""
        if self.kind == "int":
            return self.values
        if self.kind == "sequence":
            return self.items.sizes(dim) if self.items is not None else ()
        if self.kind == "mapping":
            return tuple(sorted({size for record in self.keys.values() for size in record.sizes(dim)}))
        if dim is None or not -len(self.dims) <= dim < len(self.dims):
            return ()
        return self.dims[dim]

    def varies(self, dim: int | None = None) -> bool:
        """Whether the recorded calls saw more than one size there."""
        return len(self.sizes(dim)) > 1

    def reaches_zero_or_one(self, dim: int | None = None) -> bool:
        """Whether a recorded call saw size 0 or 1 there (the sizes torch.compile specializes)."""
        return any(size <= 1 for size in self.sizes(dim))

    def key(self, name: str) -> ParamRecord | None:
        """A mapping parameter's record for ``name`` (``**kwargs["attention_mask"]``)."""
        return self.keys.get(name)


@dataclass(frozen=True)
class FunctionRecord:
    """One recorded function: ``name`` is its qualified name, ``line`` its code's first line (the
    first decorator's line when it is decorated), ``calls`` how often it was called."""

    name: str
    line: int
    calls: int
    params: Mapping[str, ParamRecord]

    def param(self, name: str) -> ParamRecord | None:
        """The parameter's record, or None when it never held a tensor, an int, a list/tuple of
        tensors or a dict of them."""
        return self.params.get(name)


@dataclass(frozen=True)
class FileRecord:
    path: str
    lines: frozenset[int]
    functions: tuple[FunctionRecord, ...]


class Workload:
    """A loaded workload file (see :func:`load_workload`)."""

    def __init__(self, path: str, data: dict[str, Any], files: dict[str, FileRecord]) -> None:
        self.path = path
        self.command: list[str] = data["command"]
        self.cwd: str = data["cwd"]
        self.python: str = data["python"]
        self.torch: str | None = data["torch"]
        self.files = files
        #: file name -> (path components, path) of the recorded files of that name
        self._by_name: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for recorded in files:
            parts = _parts(recorded)
            if parts:
                self._by_name.setdefault(parts[-1], []).append((parts, recorded))
        self._resolved: dict[str, str | None] = {}
        self._decorated: dict[str, dict[int, int]] = {}

    def recorded(self, path: str) -> FileRecord | None:
        """The record of the file at ``path``: by real path, else by the longest path suffix (two
        components or more) that a single recorded file shares with it."""
        if path not in self._resolved:
            self._resolved[path] = self._match(path)
        match = self._resolved[path]
        return None if match is None else self.files[match]

    def _match(self, path: str) -> str | None:
        real = os.path.realpath(path)
        if real in self.files:
            return real
        parts = _parts(real)
        best: str | None = None
        longest, tied = 0, False
        for candidate, recorded in self._by_name.get(parts[-1], ()) if parts else ():
            shared = _shared_suffix(parts, candidate)
            if shared > longest:
                best, longest, tied = recorded, shared, False
            elif shared == longest:
                tied = True
        return best if longest >= 2 and not tied else None

    def recorded_file(self, path: str) -> bool:
        """Whether the recording ran any of the file at ``path``."""
        return self.recorded(path) is not None

    def ran(self, path: str, line: int) -> bool | None:
        """Whether ``line`` of ``path`` ran; None when the file was not recorded at all."""
        record = self.recorded(path)
        return None if record is None else line in record.lines

    def function_at(self, path: str, def_line: int) -> FunctionRecord | None:
        """The function of ``path`` whose ``def`` (or first decorator) is on ``def_line``.

        The recording knows a function by its code's first line, which is its first decorator's
        line when it has decorators; for a decorated function's ``def`` line, the file at ``path``
        is parsed (once) to find that decorator line."""
        record = self.recorded(path)
        if record is None:
            return None
        for function in record.functions:
            if function.line == def_line:
                return function
        first = self._decorator_lines(path).get(def_line)
        return next((function for function in record.functions if function.line == first), None)

    def _decorator_lines(self, path: str) -> dict[int, int]:
        """``def`` line -> first decorator line, for the decorated functions of ``path``."""
        if path not in self._decorated:
            found: dict[int, int] = {}
            try:
                with open(path, "rb") as handle:
                    tree = ast.parse(handle.read())
            except (OSError, SyntaxError, ValueError):
                tree = None
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.decorator_list:
                    found[node.lineno] = min(decorator.lineno for decorator in node.decorator_list)
            self._decorated[path] = found
        return self._decorated[path]


def _parts(path: str) -> tuple[str, ...]:
    return tuple(part for part in re.split(r"[\\/]", path) if part)


def _shared_suffix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def load_workload(path: str | os.PathLike[str]) -> Workload:
    """Read and validate the workload file at ``path``; :class:`WorkloadError` when it cannot be used."""
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = json.loads(handle.read())
    except FileNotFoundError:
        raise WorkloadError(f"{name}: no such workload file (record one with `zlint record`)") from None
    except IsADirectoryError:
        raise WorkloadError(f"{name}: is a directory, not a workload file") from None
    except OSError as exc:
        raise WorkloadError(f"{name}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, RecursionError):  # not JSON, not UTF-8
        raise WorkloadError(f"{name}: not a zlint workload file (not JSON)") from None
    if not isinstance(data, dict) or "zlint_workload" not in data:
        raise WorkloadError(f"{name}: not a zlint workload file (no `zlint_workload` key)")
    if data["zlint_workload"] != FORMAT:
        raise WorkloadError(
            f"{name}: workload format {data['zlint_workload']!r} is not supported (this zlint reads {FORMAT})"
        )
    try:
        files = _files(data)
    except _Malformed as exc:
        raise WorkloadError(f"{name}: malformed workload: {exc}") from None
    return Workload(name, data, files)


class _Malformed(Exception):
    pass


def _expect(ok: bool, where: str, what: str) -> None:
    if not ok:
        raise _Malformed(f"{where} should be {what}")


def _ints(value: Any, where: str) -> tuple[int, ...]:
    _expect(isinstance(value, list) and all(type(v) is int for v in value), where, "a list of integers")
    return tuple(value)


def _files(data: dict[str, Any]) -> dict[str, FileRecord]:
    _expect(isinstance(data.get("command"), list) and all(isinstance(a, str) for a in data["command"]),
            "command", "a list of strings")
    for key in ("cwd", "python"):
        _expect(isinstance(data.get(key), str), key, "a string")
    _expect(data.get("torch") is None or isinstance(data.get("torch"), str), "torch", "a string or null")
    _expect(isinstance(data.get("files"), dict), "files", "an object")
    files = {}
    for path, entry in data["files"].items():
        where = f"files[{path!r}]"
        _expect(isinstance(entry, dict), where, "an object")
        lines = _ints(entry.get("lines"), f"{where}.lines")
        _expect(isinstance(entry.get("functions"), list), f"{where}.functions", "a list")
        functions = tuple(_function(f, f"{where}.functions[{i}]") for i, f in enumerate(entry["functions"]))
        files[path] = FileRecord(path, frozenset(lines), functions)
    return files


def _function(entry: Any, where: str) -> FunctionRecord:
    _expect(isinstance(entry, dict), where, "an object")
    _expect(isinstance(entry.get("name"), str), f"{where}.name", "a string")
    for key in ("line", "calls"):
        _expect(type(entry.get(key)) is int, f"{where}.{key}", "an integer")
    _expect(isinstance(entry.get("params"), dict), f"{where}.params", "an object")
    params = {name: _param(value, f"{where}.params[{name!r}]") for name, value in entry["params"].items()}
    return FunctionRecord(entry["name"], entry["line"], entry["calls"], params)


def _param(entry: Any, where: str) -> ParamRecord:
    _expect(isinstance(entry, dict) and entry.get("kind") in KINDS, f"{where}.kind", f"one of {', '.join(KINDS)}")
    kind, capped = entry["kind"], entry.get("capped", False)
    _expect(type(capped) is bool, f"{where}.capped", "true or false")
    if kind == "tensor":
        _expect(isinstance(entry.get("dims"), list), f"{where}.dims", "a list")
        dims = tuple(_ints(sizes, f"{where}.dims[{i}]") for i, sizes in enumerate(entry["dims"]))
        return ParamRecord(kind, ranks=_ints(entry.get("ranks"), f"{where}.ranks"), dims=dims, capped=capped)
    if kind == "int":
        return ParamRecord(kind, values=_ints(entry.get("values"), f"{where}.values"), capped=capped)
    if kind == "sequence":
        items = _param(entry.get("items"), f"{where}.items")
        return ParamRecord(kind, lengths=_ints(entry.get("len"), f"{where}.len"), items=items, capped=capped)
    _expect(isinstance(entry.get("keys"), dict), f"{where}.keys", "an object")
    keys = {name: _param(value, f"{where}.keys[{name!r}]") for name, value in entry["keys"].items()}
    return ParamRecord(kind, keys=keys, capped=capped)
