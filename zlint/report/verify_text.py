"""How ``--verify`` results read in text output: a status after the finding, evidence below it."""

from __future__ import annotations

from zlint.core.diagnostics import Diagnostic


def status_suffix(d: Diagnostic) -> str:
    return f" [{d.verify['status']}]" if d.verify else ""


def _graphs(verify: dict) -> str:
    graphs = verify.get("graphs") or {}
    return ", ".join(f"{mode} {g['graphs']} graphs (trivial fn: {g['baseline']})" for mode, g in graphs.items())


def evidence_lines(d: Diagnostic, limit: int = 3) -> str:
    """Indented lines under a finding; empty without ``--verify``."""
    verify = d.verify
    if not verify:
        return ""
    status = verify["status"]
    # a helper's finding verified by compiling a function that calls it: the names are the caller's
    via = f" through {verify['through']}" if verify.get("through") else ""
    if status == "UNVERIFIABLE":
        out = f"    UNVERIFIABLE{via}: {verify.get('reason', '')}\n"
        if verify.get("inputs"):
            out += f"    inputs tried: {verify['inputs']}\n"
        if verify.get("example"):  # the registration to paste, without its imports
            out += f"    register: {verify['example'].splitlines()[-1]}\n"
        return out
    if status == "NOT OBSERVED":
        return f"    NOT OBSERVED{via}: {verify.get('note', '')}; {_graphs(verify)}\n"
    if verify.get("same_as"):
        return f"    {status}: the same evidence as {verify['same_as']}\n"
    items = []
    for e in verify.get("evidence", [])[:limit]:
        where = f"line {e['line']}" if e.get("line") else "no line named"
        sizes = ",".join(map(str, e.get("sizes", [])))
        items.append(f"{e['kind']} {e['detail']} ({e['mode']}, {where}, size {sizes})")
    more = len(verify.get("evidence", [])) - limit
    tail = f"; +{more} more" if more > 0 else ""
    if status == "GUARDED":
        return f"    GUARDED{via} (no cost observed): {verify.get('note', '')}: {'; '.join(items)}{tail}\n"
    cost = f" ({verify['cost']})" if verify.get("cost") else ""
    return f"    CONFIRMED in {verify.get('mode')} mode{via}{cost}: {'; '.join(items)}{tail}\n"
