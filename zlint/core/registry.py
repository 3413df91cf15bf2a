"""Rule metadata: one :class:`RuleRecord` per code, and selection by code or prefix (``ZL1``, ``ALL``).

Every consumer of rule metadata reads it here: settings (selectors), the engine (which visitors
to run), writers (SARIF), the flake8 adapter (opt-in codes), ``zlint rules`` and the docs. Loading
it imports neither LibCST nor any rule module, so front ends that only need to know *about* the
rules (the pytest plugin, ``zlint rules``, selector checks) stay cheap.

Where the metadata is declared, and why there
---------------------------------------------
A rule is the module ``zlint/rules/zl<code>_<snake_name>.py`` (found by its file name: there is
no list to edit). Its metadata are literal assignments in that module, read here with
:mod:`ast`, never by importing it:

- a static rule (a LibCST visitor) declares them as class attributes of its visitor class,
  which the visitor needs anyway (``self.code`` in :meth:`Rule.report`)::

      class SizeTruthiness(Rule):
          code = "ZL102"
          name = "size-truthiness"
          summary = "The truth value of a tensor size decides control flow"
          default_enabled = False    # optional (default True): opt-in
          severity = "info"          # optional: "error", "warning" (default) or "info"
          tier = "single-graph"      # optional (default "default")
          family = "..."             # optional (default: from the code, see FAMILIES)

- a rule that no visitor reports (``kind = "runtime"``: ``--verify`` reports it; ``"meta"``: the
  engine or an adapter does) declares the same names at module level, and defines no class.

Reading literals from the module keeps one source of truth next to the code that reports the
finding (a record cannot disagree with its visitor, and ``tests/test_layers.py`` checks that the
imported class says the same), and adds no new file format. A front-matter block in each rule doc
was the alternative; it would split a rule's identity from the class that reports it and make
the docs a runtime input of the linter. Each module is parsed only up to its first ``def``
after the ``code =`` line (the whole module when that does not parse).

Even so, parsing every rule module costs ~10-15 ms, which every run pays, cache hits and flake8
runs with the ZL codes ignored included. So the records are also kept in a generated table,
``zlint/data/rules.json`` (``python -m zlint.core.registry`` rewrites it), with a digest of the rule
modules' bytes: when it matches (~1 ms to check), the table is read; when a rule module
was added, removed or edited since, the modules are read as above. The table can be stale (a
slower start) but never wrong; ``tests/engine/test_startup_imports.py`` fails while it is stale.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import re
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: the rule modules: ``zl`` + three digits + ``_`` + the rule's name in snake case
PACKAGE = Path(__file__).resolve().parents[1]  # zlint/
RULES_DIRECTORY = PACKAGE / "rules"
MODULE_PATTERN = re.compile(r"^zl(\d{3})_[a-z0-9_]+\.py$")
KINDS = ("static", "runtime", "meta")
SEVERITIES = ("error", "warning", "info")
TIERS = ("default", "single-graph")
#: a rule's family, from the hundreds of its code unless the rule declares ``family``
FAMILIES = {
    "0": "linter",
    "1": "size-branching",
    "2": "size-specialization",
    "3": "data-dependent",
    "4": "compile-setup",
    "8": "runtime",
    "9": "suppression",
}
#: the literal assignments a rule module may declare, with their types
FIELDS = {
    "code": str,
    "name": str,
    "summary": str,
    "default_enabled": bool,
    "severity": str,
    "tier": str,
    "family": str,
    "kind": str,
    "about_compiled_code": bool,
    "needs_size_oblivious": bool,
}
_CODE_LINE = re.compile(r"^[ \t]*code[ \t]*(?::[^=\n]*)?=", re.M)
_BODY_START = re.compile(r"^[ \t]*(?:async[ \t]+def|def|@)\b", re.M)


@dataclass(frozen=True)
class RuleRecord:
    """What zlint knows about a rule without running it."""

    code: str
    name: str
    summary: str
    #: the group the rule belongs to (:data:`FAMILIES`): docs tables and ``zlint rules`` sort by it
    family: str
    #: "static": a LibCST visitor in the rule module; "runtime": reported by ``--verify`` only;
    #: "meta": reported by the engine or an adapter about the lint itself (ZL000, ZL901)
    kind: str = "static"
    #: False for opt-in rules, enabled only by an explicit --select/--extend-select
    default_enabled: bool = True
    #: "warning"; "error" for a wrong result; "info" for advice rather than a defect (SARIF level)
    severity: str = "warning"
    #: the usual cost tier of a finding ("default" or "single-graph"); a finding may override it
    tier: str = "default"
    #: True when a finding matters only where the code runs compiled (False: about a compile
    #: call, configuration or a comment, wherever it sits); default: False for meta rules
    about_compiled_code: bool = True
    #: True for rules that only exist under ``backed_size_oblivious``
    needs_size_oblivious: bool = False
    #: the module that declares the rule (``zlint.rules.zl101_size_compared_with_zero_or_one``)
    module: str = ""
    #: the visitor class in ``module`` (static rules only)
    visitor: str | None = None

    @property
    def is_static(self) -> bool:
        return self.kind == "static"


class RuleMetadataError(RuntimeError):
    """A rule module whose metadata cannot be read (a programming error in zlint)."""


class UnknownSelector(ValueError):
    """A selector that names no rule."""


def _literal_assignments(body: list[ast.stmt], where: str) -> dict[str, object]:
    found: dict[str, object] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if not isinstance(target, ast.Name) or target.id not in FIELDS:
            continue
        try:
            literal = ast.literal_eval(value)
        except ValueError:
            raise RuleMetadataError(
                f"{where}: `{target.id}` must be a literal (the registry reads it without importing)"
            ) from None
        if not isinstance(literal, FIELDS[target.id]):
            raise RuleMetadataError(f"{where}: `{target.id}` must be a {FIELDS[target.id].__name__}")
        found[target.id] = literal
    return found


def _declarations(tree: ast.Module, where: str) -> tuple[dict[str, object], str | None]:
    """The metadata a parsed rule module declares, and its visitor class (None at module level)."""
    at_module = _literal_assignments(tree.body, where)
    if "code" in at_module:
        return at_module, None
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef):
            declared = _literal_assignments(stmt.body, f"{where}: class {stmt.name}")
            if "code" in declared:
                return declared, stmt.name
    raise RuleMetadataError(f"{where}: declares no `code = \"ZL...\"` (module level or in its visitor class)")


def read_record(path: Path) -> RuleRecord:
    """The record declared by one rule module, read with ``ast`` (see the module docstring)."""
    match = MODULE_PATTERN.match(path.name)
    if match is None:
        raise RuleMetadataError(f"{path.name}: not a rule module name (zl<code>_<name>.py)")
    text = path.read_text(encoding="utf-8")
    where = f"zlint/rules/{path.name}"
    tree = None
    code_line = _CODE_LINE.search(text)
    if code_line is not None:
        body = _BODY_START.search(text, code_line.end())
        if body is not None:  # the metadata come first: parse only up to the first method
            try:
                tree = ast.parse(text[: body.start()])
                declared, visitor = _declarations(tree, where)
            except (SyntaxError, RuleMetadataError):
                tree = None
    if tree is None:
        declared, visitor = _declarations(ast.parse(text, filename=where), where)
    code = declared["code"]
    if code != f"ZL{match.group(1)}":
        raise RuleMetadataError(f"{where}: declares code {code!r}, but its file name says ZL{match.group(1)}")
    kind = declared.get("kind", "static" if visitor else "")
    if kind not in KINDS or (kind == "static") != (visitor is not None):
        raise RuleMetadataError(f"{where}: a static rule declares its metadata in its visitor class, "
                                f"a runtime or meta rule at module level with kind = 'runtime' or 'meta'")
    for key, allowed in (("severity", SEVERITIES), ("tier", TIERS)):
        if key in declared and declared[key] not in allowed:
            raise RuleMetadataError(f"{where}: {key} must be one of {', '.join(allowed)}")
    missing = [key for key in ("name", "summary") if key not in declared]
    if missing:
        raise RuleMetadataError(f"{where}: missing {', '.join(missing)}")
    fields = {key: value for key, value in declared.items() if key != "kind"}
    fields.setdefault("family", FAMILIES.get(code[2], "other"))
    fields.setdefault("about_compiled_code", kind != "meta")
    return RuleRecord(**fields, kind=kind, module=f"zlint.rules.{path.stem}", visitor=visitor)  # type: ignore[arg-type]


def load_records(directory: Path = RULES_DIRECTORY) -> tuple[RuleRecord, ...]:
    """Every rule module's record, in code order; two modules with one code are an error."""
    records = sorted(
        (read_record(path) for path in directory.iterdir() if MODULE_PATTERN.match(path.name)),
        key=lambda record: record.code,
    )
    codes = [record.code for record in records]
    if len(set(codes)) != len(codes):  # pragma: no cover - a programming error
        raise RuleMetadataError(f"two zlint rules share a code: {sorted(c for c in codes if codes.count(c) > 1)}")
    return tuple(records)


#: the generated table of every rule module's record (see the module docstring)
TABLE = PACKAGE / "data" / "rules.json"


def modules_digest(directory: Path = RULES_DIRECTORY) -> list[str]:
    """The rule modules' names, sizes and CRC-32s: what the records are read from. (A check
    against edits, not against forgery; ``hashlib`` would add its import, ~7 ms, to every flake8
    run.)"""
    parts = []
    for path in sorted(directory.iterdir()):
        if MODULE_PATTERN.match(path.name):
            data = path.read_bytes()
            parts.append(f"{path.name}:{len(data)}:{zlib.crc32(data):08x}")
    return parts


def table_text(records: Iterable[RuleRecord], digest: list[str]) -> str:
    """The table's JSON text for ``records`` read from modules whose digest is ``digest``."""
    rows = [dataclasses.asdict(record) for record in records]
    return json.dumps({"digest": digest, "records": rows}, indent=1, sort_keys=True) + "\n"


def read_table(path: Path = TABLE, digest: list[str] | None = None) -> tuple[RuleRecord, ...] | None:
    """The records of the generated table, or None when it is missing, damaged or was written
    for other rule modules than those whose digest is ``digest`` (default: the installed ones)."""
    try:
        data = json.loads(path.read_bytes())
        if data["digest"] != (digest if digest is not None else modules_digest()):
            return None
        return tuple(RuleRecord(**row) for row in data["records"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def write_table(path: Path = TABLE) -> bool:
    """Rewrite the table from the rule modules; True when its text changed."""
    text = table_text(load_records(), modules_digest())
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except OSError:
        pass
    path.write_text(text, encoding="utf-8")
    return True


#: every rule, by code, in code order (tests may add records here with monkeypatch)
RULES_BY_CODE: dict[str, RuleRecord] = {record.code: record for record in read_table() or load_records()}


def records() -> tuple[RuleRecord, ...]:
    """Every registered rule, in code order."""
    return tuple(RULES_BY_CODE.values())


def record(code: str) -> RuleRecord | None:
    """The record of one code, None for a code zlint does not know."""
    return RULES_BY_CODE.get(code)


def kind_of(code: str) -> str | None:
    """"static", "runtime" or "meta" for a registered code, None for any other."""
    found = RULES_BY_CODE.get(code)
    return found.kind if found is not None else None


def expand(selector: str) -> frozenset[str]:
    """The codes a selector names; raises :class:`UnknownSelector` when it names none."""
    sel = selector.strip().upper()
    if sel == "ALL":
        return frozenset(RULES_BY_CODE)
    if sel in RULES_BY_CODE and len(sel) == 5:  # a whole code (ZL + 3 digits) names only itself
        return frozenset((sel,))
    codes = frozenset(code for code in RULES_BY_CODE if code.startswith(sel))
    if not sel or not codes:
        raise UnknownSelector(f"unknown rule selector {selector!r} (see `zlint rules`)")
    return codes


def canonical(selectors: Iterable[str]) -> tuple[str, ...]:
    """Selectors as the registry spells codes (``" zl1"`` -> ``"ZL1"``): a selector is matched
    without regard to case, so its spelling must not make two settings differ."""
    return tuple(selector.strip().upper() for selector in selectors)


def expand_all(selectors: Iterable[str]) -> frozenset[str]:
    """The union of the codes that ``selectors`` name."""
    out: set[str] = set()
    for selector in selectors:
        out |= expand(selector)
    return frozenset(out)


def selected(selectors: Iterable[str]) -> frozenset[str]:
    """What ``select``/``extend-select`` turn on: the codes the selectors name, less the opt-in
    rules that none of them names by its whole code (``ALL`` names every rule)."""
    selectors = [s.strip().upper() for s in selectors]
    codes = expand_all(selectors)
    if "ALL" in selectors:
        return codes
    return frozenset(c for c in codes if RULES_BY_CODE[c].default_enabled or c in selectors)


def default_codes() -> frozenset[str]:
    """The codes enabled without --select: every rule not marked opt-in."""
    return frozenset(code for code, found in RULES_BY_CODE.items() if found.default_enabled)


def static_records(codes: Iterable[str]) -> list[RuleRecord]:
    """The records of the static rules among ``codes``, in code order (what the engine runs)."""
    wanted = set(codes)
    return [found for code, found in RULES_BY_CODE.items() if code in wanted and found.is_static]


if __name__ == "__main__":  # python -m zlint.core.registry: regenerate the table after editing a rule
    print(f"{TABLE}: {'rewritten' if write_table() else 'up to date'}")
