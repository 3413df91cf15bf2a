"""The one module that touches LibCST internals, each behind a feature check with a fallback to
LibCST's public API that gives the same answer.

Generating the code of one statement with LibCST's own position-recording codegen state costs
one code generation; the public way (a small module around the statement, resolved through
``MetadataWrapper``) costs two (positions, then the text to check them against). When the
internals are not there, or not shaped as this module expects, or fail when used, the public
way answers: slower, never different. ``tests/cst/test_libcst_compat.py`` removes the internals and
compares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


class GeneratedUnit(NamedTuple):
    """One statement's generated code and the positions of its nodes in that code."""

    code: str
    positions: Mapping[cst.CSTNode, CodeRange]
    first_line: int  # the line of ``code`` on which the statement's own text starts (1-based)


Generator = Callable[[cst.Module, cst.BaseStatement, Sequence[str]], GeneratedUnit]

# the fields of LibCST's codegen state this module sets or reads
_STATE_FIELDS = frozenset({"default_indent", "default_newline", "provider", "indent_tokens", "tokens"})
_UNPROBED = object()
_internal: Generator | None | object = _UNPROBED


def _probe_internal() -> Generator | None:
    """LibCST's position-recording codegen, if this LibCST has it in the expected shape."""
    try:
        from libcst.metadata.position_provider import PositionProvidingCodegenState as State
    except ImportError:
        return None
    if not callable(getattr(cst.CSTNode, "_codegen", None)) or not dataclasses.is_dataclass(State):
        return None
    if not _STATE_FIELDS <= {f.name for f in dataclasses.fields(State)}:
        return None
    if not isinstance(getattr(PositionProvider(), "_computed", None), dict):
        return None

    def generate(module: cst.Module, statement: cst.BaseStatement, indent: Sequence[str]) -> GeneratedUnit:
        provider = PositionProvider()
        state = State(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)
        state.indent_tokens = list(indent)
        statement._codegen(state)
        return GeneratedUnit("".join(state.tokens), provider._computed, 1)

    return generate


def generate_public(module: cst.Module, statement: cst.BaseStatement, indent: Sequence[str]) -> GeneratedUnit:
    """:func:`generate_unit` through LibCST's public API only: the statement inside one
    ``if 1:`` block per indentation level, as a module of its own."""
    body: cst.BaseStatement = statement
    for token in reversed(indent):
        body = cst.If(test=cst.Integer("1"), body=cst.IndentedBlock(body=[body], indent=token))
    synthetic = cst.Module(body=[body], default_indent=module.default_indent, default_newline=module.default_newline)
    positions = MetadataWrapper(synthetic, unsafe_skip_copy=True).resolve(PositionProvider)
    return GeneratedUnit(synthetic.code, positions, len(indent) + 1)


def generate_unit(module: cst.Module, statement: cst.BaseStatement, indent: Sequence[str]) -> GeneratedUnit:
    """The code of ``statement`` (a statement of ``module``) as LibCST generates it when it sits
    under the blocks whose indentation tokens are ``indent``, with the positions of its nodes."""
    global _internal
    if _internal is _UNPROBED:
        _internal = _probe_internal()
    if _internal is not None:
        try:
            return _internal(module, statement, indent)  # type: ignore[operator]
        except (AttributeError, TypeError, KeyError):  # the internals changed shape: stop using them
            _internal = None
    return generate_public(module, statement, indent)


def uses_internals() -> bool:
    """Whether :func:`generate_unit` currently takes LibCST's internal codegen path."""
    global _internal
    if _internal is _UNPROBED:
        _internal = _probe_internal()
    return _internal is not None
