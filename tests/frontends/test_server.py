"""``zlint server`` end to end: a real LSP client (pygls's, :class:`lsp_support.EditorClient`)
starts the server as a subprocess and talks to it over stdio, as an editor does."""

from __future__ import annotations

import ast
import asyncio
import random
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from lsp_support import (
    EDITOR_CAPABILITIES,
    MODEL,
    NEOVIM_07_CAPABILITIES,
    START,
    EditorClient,
    apply_edits,
    cli_shape,
    random_edit,
    server_env,
    shape,
    wait_diagnostics,
    with_server,
)

#: ZL403's doc example: its finding has a fix (mark_dynamic -> maybe_mark_dynamic)
MARKED = """\
import torch


@torch.compile
def pool(hands, keypoints):
    if hands.size(0) == 2:
        return hands.sum(0)
    return hands.mean(0)


def run(batches):
    for hands in batches:
        torch._dynamo.mark_dynamic(hands, 0)
        pool(hands, None)
"""


async def start(
    client: EditorClient,
    root: Path,
    files: dict[str, str],
    capabilities: types.ClientCapabilities = EDITOR_CAPABILITIES,
) -> dict[str, str]:
    """Write ``files`` under ``root``, initialize with ``root`` as the workspace and the client's
    ``capabilities`` (an editor's, as far as the server reads them); the files' URIs."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="test")],
        )
    )
    return {name: (root / name).as_uri() for name in files}


def open_doc(client: EditorClient, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )


def change_doc(client: EditorClient, uri: str, text: str, version: int) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def hover_at(uri: str, line: int, character: int) -> types.HoverParams:
    return types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)
    )


def codes(diagnostics: list[types.Diagnostic]) -> list[str]:
    return sorted(str(d.code) for d in diagnostics)


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in server_env().items():
        monkeypatch.setenv(key, value)


@with_server
async def test_open_reports_exact_positions_and_metadata(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL})
    open_doc(client, uris["model.py"], MODEL)
    found = await wait_diagnostics(client, uris["model.py"], lambda ds: len(ds) == 2)
    assert shape(found) == [("ZL101", 5, 7, 5, 21), ("ZL201", 7, 13, 7, 30)]
    zl101 = next(d for d in found if d.code == "ZL101")
    assert zl101.source == "zlint"
    assert zl101.severity == types.DiagnosticSeverity.Warning
    assert "size-compared-with-zero-or-one" in zl101.message
    assert zl101.data["tier"] == "single-graph" and zl101.data["scope"] == "compiled"
    assert zl101.code_description.href.endswith("ZL101-size-compared-with-zero-or-one.md")
    assert Path(zl101.code_description.href.removeprefix("file://")).is_file()


@with_server
async def test_change_updates_diagnostics(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL})
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    await wait_diagnostics(client, uri, lambda ds: len(ds) == 2)
    edited = MODEL.replace("    for i in range(x.shape[0]):\n        x = x + i\n", "    n = x.sum().item()\n")
    change_doc(client, uri, edited, 2)
    found = await wait_diagnostics(client, uri, lambda ds: "ZL201" not in codes(ds))
    assert shape(found) == [("ZL101", 5, 7, 5, 21), ("ZL301", 7, 8, 7, 22)]


@with_server
async def test_noqa_action_edit_suppresses_the_finding(client: EditorClient, tmp_path: Path):
    text = MODEL.replace("if x.size(0) == 1:", "if x.size(0) == 1:  # noqa: ZL999")
    uris = await start(client, tmp_path, {"model.py": text})
    uri = uris["model.py"]
    open_doc(client, uri, text)
    found = await wait_diagnostics(client, uri, lambda ds: len(ds) == 2)
    zl101 = next(d for d in found if d.code == "ZL101")
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=zl101.range,
            context=types.CodeActionContext(diagnostics=[zl101]),
        )
    )
    titles = [a.title for a in actions]
    assert "Add `# noqa: ZL101`" in titles, titles
    noqa = next(a for a in actions if a.title == "Add `# noqa: ZL101`")
    fixed = apply_edits(text, noqa.edit.changes[uri])
    assert fixed.splitlines()[5] == "    if x.size(0) == 1:  # noqa: ZL999, ZL101"  # appended to the list
    change_doc(client, uri, fixed, 2)
    found = await wait_diagnostics(client, uri, lambda ds: "ZL101" not in codes(ds))
    assert codes(found) == ["ZL201"]


@with_server
async def test_fix_action_applies_the_rules_fix(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"marked.py": MARKED})
    uri = uris["marked.py"]
    open_doc(client, uri, MARKED)
    found = await wait_diagnostics(client, uri, lambda ds: "ZL403" in codes(ds))
    zl403 = next(d for d in found if d.code == "ZL403")
    assert zl403.data["fix"] == "safe"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=zl403.range,
            context=types.CodeActionContext(diagnostics=[zl403]),
        )
    )
    fix = next(a for a in actions if a.title.startswith("Fix ZL403"))
    assert fix.is_preferred and fix.kind == types.CodeActionKind.QuickFix
    fixed = apply_edits(MARKED, fix.edit.changes[uri])
    assert fixed == MARKED.replace("torch._dynamo.mark_dynamic(", "torch._dynamo.maybe_mark_dynamic(")
    change_doc(client, uri, fixed, 2)
    await wait_diagnostics(client, uri, lambda ds: "ZL403" not in codes(ds))


@with_server
async def test_fix_all_applies_every_safe_fix_as_zlint_fix_writes_them(client: EditorClient, tmp_path: Path):
    """``source.fixAll.zlint`` (what ``editor.codeActionsOnSave`` asks for): one edit of the whole
    document, the text ``zlint --fix`` writes; offered only when asked for and when a safe fix
    is there."""
    twice = MARKED + "\n\n" + MARKED.split("\n\n\n")[-1].replace("def run(", "def run_again(")
    uris = await start(client, tmp_path, {"marked.py": twice, "plain.py": MODEL})
    uri = uris["marked.py"]
    open_doc(client, uri, twice)
    await wait_diagnostics(client, uri, lambda ds: codes(ds).count("ZL403") == 2)
    everything = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))

    async def actions(target: str, only: list[str] | None) -> list[types.CodeAction]:
        return await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=target), range=everything,
                context=types.CodeActionContext(diagnostics=[], only=only),
            )
        ) or []

    (fix_all,) = await actions(uri, [types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.zlint" and fix_all.title == "zlint: fix all (2 safe fixes)"
    fixed = apply_edits(twice, fix_all.edit.changes[uri])
    subprocess.run([sys.executable, "-m", "zlint", "--no-cache", "--fix", "marked.py"], cwd=tmp_path, check=False)
    assert fixed == (tmp_path / "marked.py").read_text() != twice
    assert fixed.count("maybe_mark_dynamic(") == 2 and "._dynamo.mark_dynamic(" not in fixed
    assert [a.kind for a in await actions(uri, ["source"])] == ["source.fixAll.zlint"]
    assert await actions(uri, [types.CodeActionKind.QuickFix]) == []  # no finding in the range
    assert [a.kind for a in await actions(uri, None)] == ["source.fixAll.zlint"]
    plain = uris["plain.py"]
    open_doc(client, plain, MODEL)
    await wait_diagnostics(client, plain, lambda ds: len(ds) == 2)
    assert await actions(plain, [types.CodeActionKind.SourceFixAll]) == []  # no fix to apply


@with_server
async def test_hover_shows_summary_and_use_instead(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL})
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    await wait_diagnostics(client, uri, lambda ds: len(ds) == 2)
    hover = await client.text_document_hover_async(
        hover_at(uri, 5, 10)
    )
    assert hover is not None
    text = hover.contents.value
    assert text.startswith("**ZL101**") and "Use instead" in text and "```python" in text
    nothing = await client.text_document_hover_async(
        hover_at(uri, 0, 0)
    )
    assert nothing is None


@with_server
async def test_broken_file_keeps_last_diagnostics_and_one_error(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL})
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    before = await wait_diagnostics(client, uri, lambda ds: len(ds) == 2)
    broken = MODEL + "\ndef broken(:\n"
    change_doc(client, uri, broken, 2)
    found = await wait_diagnostics(client, uri, lambda ds: "ZL000" in codes(ds))
    errors = [d for d in found if d.code == "ZL000"]
    assert len(errors) == 1 and errors[0].severity == types.DiagnosticSeverity.Error
    assert errors[0].message.startswith("zlint: syntax error at 12:")
    assert errors[0].message.endswith("(the other findings are from the last text that parsed)")
    assert errors[0].range.start.line == 11
    assert shape([d for d in found if d.code != "ZL000"]) == shape(before)
    change_doc(client, uri, MODEL, 3)  # fixed again: the error goes, the server is alive
    found = await wait_diagnostics(client, uri, lambda ds: "ZL000" not in codes(ds))
    assert shape(found) == shape(before)


@with_server
async def test_a_file_that_never_parsed_says_it_has_no_findings(client: EditorClient, tmp_path: Path):
    broken = MODEL + "\ndef broken(:\n"
    uris = await start(client, tmp_path, {"model.py": broken})
    uri = uris["model.py"]
    open_doc(client, uri, broken)
    found = await wait_diagnostics(client, uri, lambda ds: len(ds) > 0)
    assert codes(found) == ["ZL000"]  # no earlier text: nothing else to show
    assert found[0].message.startswith("zlint: syntax error at 12:")
    assert found[0].message.endswith("(no findings: no text of this file has parsed since it was opened)")
    change_doc(client, uri, MODEL, 2)
    await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL101", "ZL201"])
    change_doc(client, uri, broken, 3)  # once a text has parsed, its findings are what is kept
    found = await wait_diagnostics(client, uri, lambda ds: "ZL000" in codes(ds))
    assert codes(found) == ["ZL000", "ZL101", "ZL201"]
    assert next(d for d in found if d.code == "ZL000").message.endswith(
        "(the other findings are from the last text that parsed)"
    )


@with_server
async def test_config_change_republishes(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL, "pyproject.toml": "[tool.zlint]\n"})
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    await wait_diagnostics(client, uri, lambda ds: len(ds) == 2)
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL2"]\n')
    client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[types.FileEvent(uri=uris["pyproject.toml"], type=types.FileChangeType.Changed)]
        )
    )
    found = await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL201"])
    assert shape(found) == [("ZL201", 7, 13, 7, 30)]
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL1"]\n')
    client.text_document_did_save(  # saved in the editor: the same
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uris["pyproject.toml"]))
    )
    await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL101"])


@with_server(options=("--config-poll", "0"))
async def test_without_file_watchers_saving_a_file_applies_a_changed_pyproject(client: EditorClient, tmp_path: Path):
    """Neovim 0.7's capabilities: no file watchers to register, so nothing reports the change of
    pyproject.toml; saving the Python file is what makes the server look (polling is off)."""
    files = {"model.py": MODEL, "pyproject.toml": "[tool.zlint]\n"}
    uris = await start(client, tmp_path, files, NEOVIM_07_CAPABILITIES)
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL101", "ZL201"])
    assert client.registrations == []  # the server asked for no watcher the client cannot give
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nignore = ["ZL201"]\n')
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    found = await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL101"], timeout=10)
    assert shape(found) == [("ZL101", 5, 7, 5, 21)]
    # a pyproject.toml created nearer the file takes over, noticed on the next change of the file
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL2"]\n')
    nested = (tmp_path / "pkg" / "nested.py")
    nested.write_text(MODEL)
    open_doc(client, nested.as_uri(), MODEL)
    await wait_diagnostics(client, nested.as_uri(), lambda ds: codes(ds) == ["ZL201"])
    (tmp_path / "pkg" / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL1"]\n')
    change_doc(client, uri, MODEL + "\n", 2)
    await wait_diagnostics(client, nested.as_uri(), lambda ds: codes(ds) == ["ZL101"], timeout=10)


@with_server(options=("--config-poll", "0.1"))
async def test_without_file_watchers_the_server_polls_the_pyproject(client: EditorClient, tmp_path: Path):
    """No file watchers and no event from the editor at all (a pyproject.toml saved in a buffer
    the server is not attached to): the server's own look at the file re-publishes."""
    files = {"model.py": MODEL, "pyproject.toml": "[tool.zlint]\n"}
    uris = await start(client, tmp_path, files, NEOVIM_07_CAPABILITIES)
    uri = uris["model.py"]
    open_doc(client, uri, MODEL)
    await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL101", "ZL201"])
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nignore = ["ZL101"]\n')
    found = await wait_diagnostics(client, uri, lambda ds: codes(ds) == ["ZL201"], timeout=10)
    assert found[0].range.start.line == 7


@with_server
async def test_edit_in_one_file_changes_another_files_scope(client: EditorClient, tmp_path: Path):
    helper = "def helper(x):\n    if x.size(0) == 1:\n        return x\n    return x + 1\n"
    caller = "import torch\nfrom a import helper\n\n\ndef run(x):\n    return helper(x)\n"
    uris = await start(
        client, tmp_path, {"a.py": helper, "b.py": caller, "pyproject.toml": "[tool.zlint]\ncompiled-only = true\n"}
    )
    open_doc(client, uris["a.py"], helper)
    open_doc(client, uris["b.py"], caller)
    await wait_diagnostics(client, uris["b.py"], lambda ds: len(ds) == 0)
    assert len(await wait_diagnostics(client, uris["a.py"])) == 0  # helper is never compiled: nothing shown
    change_doc(client, uris["b.py"], caller.replace("def run", "@torch.compile\ndef run"), 2)
    found = await wait_diagnostics(client, uris["a.py"], lambda ds: len(ds) == 1)
    assert shape(found) == [("ZL101", 1, 7, 1, 21)]
    assert found[0].data["scope_reason"] == "called from run"
    change_doc(client, uris["b.py"], caller, 3)  # and back
    await wait_diagnostics(client, uris["a.py"], lambda ds: len(ds) == 0)


@with_server
async def test_scope_from_unopened_workspace_file(client: EditorClient, tmp_path: Path):
    """The index covers files that are not open: b.py compiles a.py's helper from disk."""
    helper = "def helper(x):\n    if x.size(0) == 1:\n        return x\n    return x + 1\n"
    caller = "import torch\nfrom a import helper\n\n\n@torch.compile\ndef run(x):\n    return helper(x)\n"
    uris = await start(
        client, tmp_path, {"a.py": helper, "b.py": caller, "pyproject.toml": "[tool.zlint]\ncompiled-only = true\n"}
    )
    open_doc(client, uris["a.py"], helper)
    found = await wait_diagnostics(client, uris["a.py"], lambda ds: len(ds) == 1)  # once indexed
    assert shape(found) == [("ZL101", 1, 7, 1, 21)]


@with_server
async def test_shutdown_and_exit(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL})
    open_doc(client, uris["model.py"], MODEL)
    await wait_diagnostics(client, uris["model.py"], lambda ds: len(ds) == 2)
    await client.shutdown_session()
    assert client._server.returncode == 0


@with_server
async def test_random_edits_agree_with_the_cli(client: EditorClient, tmp_path: Path):
    """After each series of seeded random edits (incremental changes), the server's diagnostics
    are ``zlint FILE --format json``'s findings; the whole series is checked where it parses.
    ``benchmarks/server.py --edits 100`` runs the issue's 100 edits."""
    rng = random.Random(25)
    uris = await start(client, tmp_path, {"model.py": START})
    uri = uris["model.py"]
    path = tmp_path / "model.py"
    text = START
    open_doc(client, uri, text)
    await wait_diagnostics(client, uri, lambda ds: len(ds) > 0)
    version, compared, since = 1, 0, 0
    for _ in range(40):
        where, new = random_edit(rng, text)
        version += 1
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=where, text=new)],
            )
        )
        text = apply_edits(text, [types.TextEdit(range=where, new_text=new)])
        since += 1
        if since < 8:
            continue
        try:
            ast.parse(text)
        except SyntaxError:
            continue
        path.write_text(text)
        expected = cli_shape(path, tmp_path)
        await wait_diagnostics(client, uri, lambda ds, expected=expected: shape(ds) == expected, timeout=10)
        compared, since = compared + 1, 0
    assert compared >= 3


#: ZL401 (opt-in) offers an unsafe fix: maybe_mark_dynamic inserted before the call
LOOPED = """\
import torch


@torch.compile
def step(x):
    return x * 2


def train(batches):
    for batch in batches:
        step(batch)
"""


@with_server
async def test_unsafe_fix_is_a_separate_labelled_action(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"train.py": LOOPED, "pyproject.toml": '[tool.zlint]\nselect = ["ZL401"]\n'})
    uri = uris["train.py"]
    open_doc(client, uri, LOOPED)
    (zl401,) = await wait_diagnostics(client, uri, lambda ds: len(ds) == 1)
    assert zl401.code == "ZL401" and zl401.data["fix"] == "unsafe"
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), range=zl401.range,
            context=types.CodeActionContext(diagnostics=[zl401]),
        )
    )
    assert [a.title.split(":")[0] for a in actions] == ["Unsafe fix ZL401", "Add `# noqa"]
    unsafe = actions[0]
    assert unsafe.title.endswith("(may change behaviour)") and not unsafe.is_preferred
    fixed = apply_edits(LOOPED, unsafe.edit.changes[uri])
    assert "        torch._dynamo.maybe_mark_dynamic(batch, 0)\n        step(batch)\n" in fixed
    change_doc(client, uri, fixed, 2)
    await wait_diagnostics(client, uri, lambda ds: len(ds) == 0)


@with_server
async def test_a_broken_pyproject_is_shown_and_the_defaults_apply(client: EditorClient, tmp_path: Path):
    uris = await start(client, tmp_path, {"model.py": MODEL, "pyproject.toml": "[tool.zlint]\nselect = 3\n"})
    open_doc(client, uris["model.py"], MODEL)
    found = await wait_diagnostics(client, uris["model.py"], lambda ds: len(ds) == 2)
    assert codes(found) == ["ZL101", "ZL201"]
    for _ in range(200):  # shown before the diagnostics; the client may still be reading it
        if any("pyproject.toml" in m.message and m.type == types.MessageType.Error for m in client.messages):
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError(f"no error shown: {client.messages}")



@with_server
async def test_columns_are_in_the_clients_units(client: EditorClient, tmp_path: Path):
    """zlint counts code points; the client (VS Code's capabilities: UTF-16) counts units: a
    character outside the BMP before a finding is two."""
    text = MODEL.replace("    if x.size(0) == 1:", '    if "\U0001F600" and x.size(0) == 1:')
    uris = await start(client, tmp_path, {"emoji.py": text})
    open_doc(client, uris["emoji.py"], text)
    found = await wait_diagnostics(client, uris["emoji.py"], lambda ds: len(ds) == 2)
    found = next(d for d in found if d.code == "ZL101")
    line = text.splitlines()[5]
    column = line.index("x.size")
    assert (found.range.start.line, found.range.start.character) == (5, column + 1)  # one code point, two units
    assert found.range.end.character == line.index(":") + 1
