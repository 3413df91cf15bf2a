"""Fuzzing the static lint: whatever the input, zlint returns a result or a one-line error, never
an exception, and never an internal error.

Two sources of programs, both reproducible (``derandomize=True``) and bounded (``max_examples``):

- hypothesmith: valid Python generated from the grammar (``from_grammar``) and from LibCST's node
  types (``from_node``), linted on the whole-file path so every rule visits every node;
- mutations of real model code (``tests/data/fuzz/*.py``): token deletions, truncations, random
  bytes, swapped and duplicated lines. A mutant that Python accepts must be linted without error.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zlint.core.settings import Settings
from zlint.engine.lint import lint_source

ALL = Settings(select=("ALL",))
SEEDS = sorted((Path(__file__).resolve().parents[1] / "data" / "fuzz").glob("*.py"))
SEED_BYTES = [p.read_bytes() for p in SEEDS]
SEED_TOKENS = [list(tokenize.tokenize(io.BytesIO(b).readline)) for b in SEED_BYTES]

FUZZ = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def python_accepts(source: str | bytes) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def check(source: str | bytes, full_path: bool | None = None) -> None:
    """The properties every input must have."""
    result = lint_source(source, "fuzz.py", ALL, full_path=full_path)
    if result.error is not None:
        reason = result.error.reason
        assert "\n" not in reason and len(reason) < 400, reason
        assert "internal error" not in reason, reason
        # CPython skips comments without decoding them, so it accepts stray non-UTF-8 bytes
        # there; zlint decodes the whole file and says where the bad byte is
        if not reason.startswith("not valid "):
            assert not python_accepts(source), f"Python accepts it but zlint says: {reason}"
    for diag in result.diagnostics:
        assert diag.line >= 1 and diag.column >= 0 and diag.code.startswith("ZL")


def test_seeds_are_valid_and_produce_findings():
    for path, data in zip(SEEDS, SEED_BYTES):
        result = lint_source(data, str(path), ALL)
        assert result.error is None, result.error
        assert len(result.diagnostics) >= 5, path  # the seeds exercise many rules


@settings(FUZZ, max_examples=40)
@given(hypothesmith.from_grammar())
def test_generated_programs_from_grammar(source):
    check(source, full_path=True)


@settings(FUZZ, max_examples=40)
@given(hypothesmith.from_node())
def test_generated_programs_from_libcst_nodes(source):
    check(source, full_path=True)


def _untokenize(tokens: list[tokenize.TokenInfo]) -> bytes:
    try:
        return tokenize.untokenize(tokens)
    except (ValueError, TypeError, IndexError):  # tokens that no longer fit together
        return b"".join(t.string.encode() for t in tokens)


@st.composite
def mutants(draw) -> bytes:
    """One seed file with one or two mutations."""
    index = draw(st.integers(0, len(SEEDS) - 1))
    data, tokens = SEED_BYTES[index], SEED_TOKENS[index]
    for _ in range(draw(st.integers(1, 2))):
        kind = draw(
            st.sampled_from(["delete-token", "truncate", "random-bytes", "swap-lines", "duplicate-line", "dedent"])
        )
        if kind == "delete-token":
            at = draw(st.integers(1, len(tokens) - 1))  # keep the ENCODING token
            data = _untokenize(tokens[:at] + tokens[at + 1 :])
        elif kind == "truncate":
            data = data[: draw(st.integers(0, len(data)))]
        elif kind == "random-bytes":
            at = draw(st.integers(0, len(data)))
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at + draw(st.integers(0, 4)) :]
        else:
            lines = data.splitlines(keepends=True)
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if kind == "swap-lines":
                lines[i], lines[j] = lines[j], lines[i]
            elif kind == "duplicate-line":
                lines.insert(j, lines[i])
            else:
                lines[i] = lines[i].lstrip(b" ")
            data = b"".join(lines)
    return data


@settings(FUZZ, max_examples=150)
@given(mutants())
def test_mutated_model_code(data):
    check(data)


@settings(FUZZ, max_examples=40)
@given(mutants())
def test_mutated_model_code_full_path(data):
    check(data, full_path=True)


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"])
def test_seed_with_other_line_ends_gives_the_same_findings(newline):
    for data in SEED_BYTES:
        plain = lint_source(data, "f.py", ALL)
        other = lint_source(data.replace(b"\n", newline), "f.py", ALL)
        assert other.error is None
        assert [(d.line, d.column, d.code) for d in other.diagnostics] == [
            (d.line, d.column, d.code) for d in plain.diagnostics
        ]
