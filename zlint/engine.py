"""The one linting engine: source text in, diagnostics out. Front ends are thin adapters.

Per file: decode, check syntax, parse once with LibCST, compute the shared size facts once, and
run every enabled rule in one batched traversal; then apply ``# noqa``.
"""

from __future__ import annotations

import ast
import io
import tokenize
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper

from zlint import noqa, registry
from zlint.diagnostics import Diagnostic, FileError
from zlint.facts.imports import ImportMap
from zlint.facts.size_facts import SizeFactsProvider
from zlint.rules.base import FileContext, Rule, ScopeTracker
from zlint.settings import Settings


@dataclass
class FileResult:
    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: FileError | None = None


class SourceError(Exception):
    """The file cannot be linted; the message is one line."""


def decode_source(data: bytes) -> str:
    """Decode like Python does (BOM, PEP 263 cookie, default UTF-8), with one-line errors."""
    if b"\x00" in data:
        raise SourceError("source contains null bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        raise SourceError(f"cannot decode: {exc.msg if hasattr(exc, 'msg') else exc}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        detail = f" (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})" if isinstance(
            exc, UnicodeDecodeError
        ) else ""
        raise SourceError(f"not valid {encoding}{detail}") from None
    return text.removeprefix("\ufeff")


def check_syntax(text: str, path: str) -> None:
    """Raise SourceError with Python's own message for invalid syntax."""
    try:
        ast.parse(text, filename=path)
    except SyntaxError as exc:
        where = f"{exc.lineno}:{(exc.offset or 1)}" if exc.lineno else "?"
        raise SourceError(f"syntax error at {where}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise SourceError("too deeply nested to parse") from None
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        raise SourceError(str(exc)) from None


def _failing_rule(exc: BaseException) -> str:
    """The code of the rule in whose method an exception was raised, if any."""
    code = "engine"
    for frame, _ in traceback.walk_tb(exc.__traceback__):
        owner = frame.f_locals.get("self")
        if isinstance(owner, Rule):
            code = owner.code
    return code


def run_rules(module: cst.Module, path: str, rules: list[type[Rule]]) -> list[Diagnostic]:
    """Run ``rules`` over a parsed module in one batched traversal."""
    imports = ImportMap()
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True, cache={SizeFactsProvider: imports})
    context = FileContext(path=path, module=module, imports=imports)
    visitors: list[cst.BatchableCSTVisitor] = [ScopeTracker(context)]
    visitors.extend(rule(context) for rule in rules)
    wrapper.visit_batched(visitors)
    return context.diagnostics


def lint_source(source: str | bytes, path: str = "<string>", settings: Settings | None = None) -> FileResult:
    """Lint one file's contents. Never raises for bad input: problems come back as ``error``."""
    settings = settings or Settings()
    result = FileResult(path)
    try:
        text = decode_source(source) if isinstance(source, bytes) else source
        if "\x00" in text:
            raise SourceError("source contains null bytes")
        check_syntax(text, path)
    except SourceError as exc:
        result.error = FileError(path, str(exc))
        return result

    codes = settings.enabled_codes(path)
    file_noqa = noqa.file_suppression(text) if "noqa" in text else None
    if file_noqa is not None:
        codes = frozenset(c for c in codes if not file_noqa.covers(c))
    rules = registry.rules_for(codes)
    if not rules:
        return result

    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        result.error = FileError(path, f"syntax error at {exc.raw_line}:{exc.raw_column + 1}: {exc.message}")
        return result
    except (RecursionError, MemoryError):
        result.error = FileError(path, "too deeply nested to parse")
        return result

    try:
        diagnostics = run_rules(module, path, rules)
    except RecursionError:
        result.error = FileError(path, "too deeply nested to analyse")
        return result
    except Exception as exc:  # a bug in a rule must not take the other files down
        result.error = FileError(
            path, f"internal error in {_failing_rule(exc)}: {type(exc).__name__}: {exc} (please report)"
        )
        return result

    lines = text.splitlines()
    result.diagnostics = sorted(noqa.filter_suppressed(diagnostics, lines))
    return result


def lint_file(path: str | Path, settings: Settings | None = None) -> FileResult:
    """Read and lint one file."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except IsADirectoryError:
        return FileResult(name, error=FileError(name, "is a directory"))
    except FileNotFoundError:
        return FileResult(name, error=FileError(name, "no such file or directory"))
    except PermissionError:
        return FileResult(name, error=FileError(name, "permission denied"))
    except OSError as exc:
        return FileResult(name, error=FileError(name, f"cannot read: {exc.strerror or exc}"))
    return lint_source(data, name, settings)
