"""Guards that keep hostile input from crashing zlint: reading only regular files, and refusing
nesting deeper than LibCST survives.

LibCST's native parser recurses once per nesting level and overflows the C stack (a segfault,
not an exception) at about 1,500 chained subscripts or 3,000 implicitly concatenated strings; its
Python visitors hit the recursion limit much earlier. Python's own ``ast`` accepts deeper code, so
the ``ast`` (parsed first anyway) is measured the way LibCST nests, and deeper files get a clear
one-line error instead of a crash.
"""

from __future__ import annotations

import ast
import codecs
import errno
import io
import os
import re
import stat
import tokenize
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path

from zlint.core.diagnostics import Diagnostic, FileError, Hidden

#: Deepest nesting zlint lints. Real model code stays far below (the deepest file of the
#: transformers/timm/torchvision/diffusers corpus measures 53), and LibCST crashes natively near
#: 1,500; past about 300 its Python visitors may run out of recursion, which the engine reports
#: as "too deeply nested to analyse".
MAX_NESTING = 500

#: Largest file zlint lints. LibCST needs about 350 MB of memory and tens of seconds per MB of
#: real code (several GB per MB for dense one-line expressions); the largest real model files are
#: far smaller (the corpus's largest: 0.33 MB; torch's own largest source: 1.3 MB), so a bigger
#: file is generated data, refused with a clear error instead of exhausting the machine.
MAX_FILE_BYTES = 4 * 1024 * 1024

#: Characters some tools count as line breaks and Python does not: on such files line numbers
#: could disagree between ``ast``, LibCST and the text, so the cheap shortcuts step aside.
ODD_SEPARATORS = re.compile("[\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)")

# Compound ast nodes that LibCST nests one level per element, while ``ast`` keeps them flat.
_STRINGS = (ast.Constant, ast.JoinedStr)
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class UnreadableFile(OSError):
    """The path is not something zlint reads (a FIFO, a device, a socket)."""


def read_regular_file(path: str | os.PathLike) -> bytes:
    """The bytes of a regular file. Anything else raises :class:`UnreadableFile` without
    blocking: opening a FIFO for reading would otherwise wait forever for a writer."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(mode):
            raise UnreadableFile("not a regular file")
        size = os.fstat(fd).st_size
        if size > MAX_FILE_BYTES:
            raise UnreadableFile(too_large(size))
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    finally:
        os.close(fd)


def too_large(size: int) -> str:
    """The one-line reason a file of ``size`` bytes is not linted."""
    return f"too large to lint ({size / 2**20:.1f} MiB; the limit is {MAX_FILE_BYTES // 2**20} MiB): exclude it"


def nesting_depth(tree: ast.AST, text: str, stop: int = MAX_NESTING) -> int:
    """How deep LibCST would nest ``tree`` (parsed from ``text``), exactly as far as it matters:
    the result exceeds ``stop`` exactly when the nesting does.

    Iterative, so the measurement itself cannot overflow. Where ``ast`` is flatter than LibCST
    it adds the levels LibCST builds: ``a and b and c`` and implicit string concatenation are
    binary trees there, comprehension ``for`` clauses nest, and a dotted import name is a chain
    of attributes. To stay cheap it skips every subtree too short to get deep: each level takes
    at least one character of source (two per ``and``, per concatenated literal, per dotted
    name part), so a node of ``n`` characters holds at most about ``n`` levels; ``2 * n + 8``
    leaves a margin for the few levels that take none (``Expr``, ``keyword``).
    """
    lines = _Lines(text)
    deepest = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (ast.expr, ast.stmt)) and depth + 2 * lines.span(node) + 8 <= stop:
            deepest = max(deepest, depth)
            continue
        if isinstance(node, ast.BoolOp):
            depth += len(node.values) - 1
        elif isinstance(node, ast.alias):
            depth += node.name.count(".")
        elif isinstance(node, ast.ImportFrom):
            depth += (node.module or "").count(".")
        elif isinstance(node, _STRINGS):
            depth += _string_parts(node, lines, stop - depth) - 1
        if depth > deepest:
            deepest = depth
            if deepest > stop:
                return deepest
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for index, generator in enumerate(node.generators):
                stack.append((generator, depth + 1 + index))
            children = [c for c in ast.iter_child_nodes(node) if not isinstance(c, ast.comprehension)]
        elif isinstance(node, ast.JoinedStr):
            # only the embedded expressions: the literal pieces (and format specs) carry the
            # whole string's position on Python < 3.12 and would count its parts again
            children = [c.value for c in node.values if isinstance(c, ast.FormattedValue)]
        else:
            children = ast.iter_child_nodes(node)
        stack.extend((child, depth + 1) for child in children)
    return deepest


class _Lines:
    """Line lengths of a source, split as Python splits lines, computed on first use."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[str] | None = None
        self._starts: list[int] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self.text)
        return self._lines

    def span(self, node: ast.AST) -> int:
        """An upper bound on the characters ``node`` covers (column offsets count UTF-8 bytes,
        never fewer than characters)."""
        first, last = node.lineno, node.end_lineno  # type: ignore[attr-defined]
        if last is None or node.end_col_offset is None:  # type: ignore[attr-defined]
            return len(self.text)
        if first == last:
            return node.end_col_offset - node.col_offset  # type: ignore[attr-defined]
        if self._starts is None:
            self._starts = [0, *accumulate(len(line) + 1 for line in self.lines)]
        if last > len(self.lines):
            return len(self.text)
        return self._starts[last - 1] - self._starts[first - 1] + node.end_col_offset  # type: ignore[attr-defined]


def _string_parts(node: ast.expr, lines: _Lines, room: int) -> int:
    """How many literals an ``ast`` string node was concatenated from (1 when it cannot matter).

    A concatenation of k literals spans at least 2k characters, so only a string whose source
    is longer than ``2 * room`` can push the depth past the limit; only those are tokenized.
    """
    if isinstance(node, ast.Constant) and not isinstance(node.value, (str, bytes)):
        return 1
    if lines.span(node) <= 2 * max(room, 0):
        return 1
    first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[operator]
    if last >= len(lines.lines):
        return 1
    block = "\n".join(lines.lines[first : last + 1]) + "\n"
    if block.count('"') + block.count("'") < 2 * room:  # each literal has two quotes
        return 1
    segment = ast.get_source_segment(block, _shifted(node, first))
    if segment is None:
        return 1
    parts = 0
    try:  # inside parentheses line breaks are insignificant, so the segment tokenizes alone
        for token in tokenize.generate_tokens(io.StringIO("(" + segment + ")").readline):
            if token.type == tokenize.STRING or token.type == getattr(tokenize, "FSTRING_START", -1):
                parts += 1
    except (tokenize.TokenError, SyntaxError):
        return 1
    return max(parts, 1)


def _shifted(node: ast.expr, first: int) -> ast.expr:
    """A stand-in with ``node``'s position moved up by ``first`` lines."""
    copy = ast.Constant(value=None)
    copy.lineno, copy.end_lineno = node.lineno - first, node.end_lineno - first  # type: ignore[operator]
    copy.col_offset, copy.end_col_offset = node.col_offset, node.end_col_offset
    return copy


def exception_summary(exc: BaseException, limit: int = 200) -> str:
    """``Type: message`` on one line, short, and never raising: a message that cannot be
    rendered (e.g. a ``KeyError`` holding a node too deep to ``repr``) is left out."""
    name = type(exc).__name__
    try:
        message = str(exc)
    except BaseException:  # noqa: BLE001 - the summary must not fail whatever the message does
        message = ""
    message = " ".join(message.split())
    if len(message) > limit:
        message = message[: limit - 3] + "..."
    return f"{name}: {message}" if message else name


def caused_by_recursion(exc: BaseException) -> bool:
    """True when ``exc`` or an exception it was raised while handling is a RecursionError
    (LibCST can turn a RecursionError into a KeyError as its context managers unwind)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, RecursionError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


# -- reading a file for the engine (no LibCST here, so a fully cached run never loads it) --------


@dataclass
class FileResult:
    """One file's findings, or the one-line reason it could not be linted."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: FileError | None = None
    #: what placement hid, by why (:func:`zlint.scope.placement.place_counted`), and the findings
    #: themselves, each with why (``--show-hidden``)
    hidden: Hidden = field(default_factory=Hidden)
    hidden_findings: list[Diagnostic] = field(default_factory=list)


class SourceError(Exception):
    """The file cannot be linted; the message is one line."""


def decode_source(data: bytes) -> str:
    """Decode like Python does (BOM, PEP 263 cookie, default UTF-8), with one-line errors."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):  # say why, not "null bytes"
        raise SourceError(
            "UTF-16 or UTF-32 (byte order mark at offset 0): Python source must be UTF-8 or declare its encoding"
        )
    if b"\x00" in data:
        raise SourceError("source contains null bytes")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "unknown encoding" in str(exc):
            raise SourceError(str(exc)) from None
        # no cookie and the first lines are not UTF-8: let the decode below say where
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        detail = f" (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})" if isinstance(
            exc, UnicodeDecodeError
        ) else ""
        raise SourceError(f"not valid {encoding}{detail}") from None
    return text.removeprefix("\ufeff")


def check_syntax(text: str, path: str) -> ast.Module:
    """Raise SourceError with Python's own message for invalid syntax; return the ``ast``."""
    try:
        return ast.parse(text, filename=path)
    except SyntaxError as exc:
        where = f"{exc.lineno}:{(exc.offset or 1)}" if exc.lineno else "?"
        raise SourceError(f"syntax error at {where}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise SourceError("too deeply nested to parse") from None
    except ValueError as exc:  # e.g. source code string cannot contain null bytes
        raise SourceError(str(exc)) from None


@dataclass(frozen=True)
class ParsedSource:
    """A file's text and its ``ast``, parsed once for every pass that reads the file (the project
    index's summary, the linting engine)."""

    text: str
    tree: ast.Module


def parse_source(source: str | bytes, path: str) -> ParsedSource:
    """Decode and parse ``source``; raise SourceError with the one-line reason it cannot be."""
    if len(source) > MAX_FILE_BYTES:  # bounded time and memory
        raise SourceError(too_large(len(source)))
    text = decode_source(source) if isinstance(source, bytes) else source
    if "\x00" in text:
        raise SourceError("source contains null bytes")
    return ParsedSource(text, check_syntax(text, path))


def read_source(path: str | Path) -> bytes | FileResult:
    """A file's bytes, or a FileResult with the one-line reason it cannot be read."""
    name = str(path)
    try:
        return read_regular_file(path)  # never blocks on a FIFO
    except UnreadableFile as exc:
        return FileResult(name, error=FileError(name, str(exc)))
    except IsADirectoryError:
        return FileResult(name, error=FileError(name, "is a directory"))
    except FileNotFoundError:
        return FileResult(name, error=FileError(name, "no such file or directory"))
    except PermissionError:
        return FileResult(name, error=FileError(name, "permission denied"))
    except OSError as exc:
        return FileResult(name, error=FileError(name, f"cannot read: {exc.strerror or exc}"))


def full_path_default() -> bool:
    """True when ``ZLINT_FULL_PATH`` asks for the plain whole-file path (for comparisons)."""
    return os.environ.get("ZLINT_FULL_PATH", "") not in ("", "0")
