"""The language server's state without the protocol (:mod:`zlint.frontends.server.workspace`):
placement with the project index, moved scopes, classification that leaves the index as read."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

from zlint.adoption.add_noqa import with_noqa
from zlint.core.source import parse_source
from zlint.frontends.server.workspace import Workspace, _line_map
from zlint.scope.index import summary_of

HELPER = "def helper(x):\n    if x.size(0) == 1:\n        return x\n    return x + 1\n"
CALLER = "import torch\nfrom a import helper\n\n\n@torch.compile\ndef run(x):\n    return helper(x)\n"


def test_line_map_moves_the_lines_after_an_edit():
    old = "a\nb\nc\nd\n"
    moved = _line_map(old, "a\nb\nnew\nnew\nc\nd\n")
    assert [moved(n) for n in (1, 2, 3, 4)] == [1, 2, 5, 6]
    moved = _line_map(old, "a\nd\n")  # b and c deleted: what was inside goes to the stretch's end
    assert [moved(n) for n in (1, 2, 3, 4)] == [1, 2, 2, 2]
    assert _line_map(old, old)(3) == 3


def test_another_files_edit_re_places_an_open_file(tmp_path: Path):
    (tmp_path / "a.py").write_text(HELPER)
    (tmp_path / "b.py").write_text(CALLER.replace("@torch.compile\n", ""))
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\ncompiled-only = true\n")
    workspace = Workspace([tmp_path])
    workspace.index_workspace()
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    workspace.open(a, HELPER)
    assert workspace.documents[a].diagnostics == []
    workspace.open(b, CALLER.replace("@torch.compile\n", ""))
    assert workspace.update(b, CALLER) == {a, b}  # exact: classified at once
    assert [(d.code, d.line, d.scope_reason) for d in workspace.documents[a].diagnostics] == [
        ("ZL101", 2, "called from run")
    ]
    workspace.update(b, CALLER.replace("@torch.compile\n", ""), exact=False)  # placed, index stale
    assert workspace.stale and len(workspace.documents[a].diagnostics) == 1
    assert workspace.settle() == {a}
    assert workspace.documents[a].diagnostics == [] and not workspace.stale


def test_the_moved_scope_is_what_classifying_finds_for_an_edit_in_a_body(tmp_path: Path):
    text = CALLER.replace("    return helper(x)\n", "    if x.size(0) == 1:\n        return x\n    return helper(x)\n")
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "b.py")
    workspace.open(path, text)
    edited = text.replace("def run(x):\n", "def run(x):\n    y = 1\n    z = 2\n")
    workspace.update(path, edited, exact=False)
    moved = [(d.code, d.line, d.scope, d.scope_reason) for d in workspace.documents[path].diagnostics]
    assert moved == [("ZL101", 9, "compiled", "decorated with torch.compile")]
    assert workspace.settle() == set()  # the exact scope agrees: nothing to publish again


def test_classifying_leaves_the_summaries_as_read(tmp_path: Path):
    """classify adds the calls of a compile-state branch to its function: on copies only, so a
    second classification with another predicate starts from the file's own summary."""
    text = (
        "import torch\n\n\ndef helper(x):\n    return x\n\n\n@torch.compile\ndef run(x):\n"
        "    if torch.compiler.is_compiling():\n        helper(x)\n    return x\n"
    )
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "c.py")
    workspace.open(path, text)
    before = copy.deepcopy(workspace._summaries[path])
    workspace._classify()
    workspace._classify()
    assert workspace._summaries[path] == before


def test_a_syntax_error_keeps_the_last_findings(tmp_path: Path):
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "b.py")
    text = CALLER.replace("    return helper(x)\n", "    if x.size(0) == 1:\n        return x\n    return helper(x)\n")
    workspace.open(path, text)
    before = list(workspace.documents[path].diagnostics)
    workspace.update(path, text + "def broken(:\n")
    document = workspace.documents[path]
    assert document.diagnostics == before and document.error is not None
    assert document.error_at == (10, 12)  # line 10, column 12 (1-based): the `:`


def test_a_broken_config_is_reported_and_the_defaults_apply(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\nunknown = 1\n")
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "b.py")
    workspace.open(path, "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    assert [d.code for d in workspace.documents[path].diagnostics] == ["ZL301"]
    assert len(workspace.config_errors) == 1 and "unknown key" in workspace.config_errors[0]


def test_with_noqa_appends_to_the_lines_list_once():
    assert with_noqa("x = f()\n", 1, ["ZL301"]) == "x = f()  # noqa: ZL301"
    assert with_noqa("x = f()  # noqa: ZL101\n", 1, ["ZL301"]) == "x = f()  # noqa: ZL101, ZL301"
    assert with_noqa("x = f()  # noqa: ZL301\n", 1, ["ZL301"]) is None
    assert with_noqa('x = """\na\n"""\n', 1, ["ZL301"]) is None  # the line ends inside a string
    assert with_noqa("x = (\n", 1, ["ZL301"]) is None  # does not tokenize


def test_the_cli_does_not_load_pygls():
    """Only `zlint server` imports the protocol half."""
    code = "import sys, zlint.frontends.cli; print([m for m in sys.modules if m.startswith(('pygls', 'lsprotocol'))])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_the_server_without_its_extra_says_how_to_install_it_from_a_clone():
    """zlint is not on PyPI (README, Install): the hint installs the extra from the clone, as the
    README and docs/editors.md do, never ``pip install 'zlint[server]'`` from an index."""
    # pygls blocked as if not installed (None in sys.modules makes its import fail)
    code = "import sys; sys.modules['pygls'] = None; from zlint.frontends.cli import main; sys.exit(main(['server']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(
        "zlint: error: the server needs pygls and lsprotocol; in your zlint clone: pip install '.[server]' "
        "(from elsewhere: pip install '/path/to/zlint[server]') ("
    )
    assert "pip install 'zlint[server]'" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_failing_handler_is_logged_not_raised(caplog):
    from zlint.frontends.server.lsp import ZlintServer, _guarded

    def handler(ls, params):
        raise RuntimeError("a bug")

    with caplog.at_level("ERROR", logger="zlint.server"):
        assert _guarded(handler)(ZlintServer(), None) is None
    assert "internal error in handler" in caplog.text and "RuntimeError: a bug" in caplog.text


def test_doc_links_and_use_instead():
    from zlint.frontends.server.lsp import doc_url, use_instead

    assert doc_url("ZL101", "https://example.org/zlint/") == (
        "https://example.org/zlint/rules/ZL101-size-compared-with-zero-or-one/"
    )
    local = doc_url("ZL101", None)
    assert local.startswith("file://") and local.endswith("/ZL101-size-compared-with-zero-or-one.md")
    assert use_instead("ZL403").startswith("```python") and "maybe_mark_dynamic" in use_instead("ZL403")


def test_a_config_change_re_reads_which_files_the_index_has(tmp_path: Path):
    (tmp_path / "a.py").write_text(HELPER)
    (tmp_path / "b.py").write_text(CALLER)
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\ncompiled-only = true\nexclude = ["b.py"]\n')
    workspace = Workspace([tmp_path])
    workspace.index_workspace()
    a = str(tmp_path / "a.py")
    workspace.open(a, HELPER)
    assert workspace.documents[a].diagnostics == []  # b.py, which compiles helper, is excluded
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\ncompiled-only = true\n")
    assert workspace.reload_settings() == {a}
    assert [d.code for d in workspace.documents[a].diagnostics] == ["ZL101"]


def test_a_workspace_folder_added_joins_the_index(tmp_path: Path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "one" / "a.py").write_text(HELPER)
    (tmp_path / "two" / "b.py").write_text(CALLER)
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\ncompiled-only = true\n")
    workspace = Workspace([tmp_path / "one"])
    workspace.index_workspace()
    a = str(tmp_path / "one" / "a.py")
    workspace.open(a, HELPER)
    assert workspace.documents[a].diagnostics == []
    assert workspace.change_roots([str(tmp_path / "two")], []) == {a}
    assert [d.code for d in workspace.documents[a].diagnostics] == ["ZL101"]
    assert workspace.change_roots([], [str(tmp_path / "two")]) == {a}
    assert workspace.documents[a].diagnostics == []


def test_a_file_indexed_before_it_is_opened_is_placed_alone_until_the_index_is_in(tmp_path: Path):
    text = CALLER.replace("    return helper(x)\n", "    if x.size(0) == 1:\n        return x\n    return helper(x)\n")
    (tmp_path / "b.py").write_text(text)
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "b.py")
    workspace.summarize_file(path)  # the background indexing got to it first
    workspace.open(path, text)
    assert [(d.code, d.scope) for d in workspace.documents[path].diagnostics] == [("ZL101", "compiled")]


def test_edits_while_the_index_is_stale_keep_moving_the_last_scope(tmp_path: Path):
    text = CALLER.replace("    return helper(x)\n", "    if x.size(0) == 1:\n        return x\n    return helper(x)\n")
    workspace = Workspace([tmp_path])
    workspace.indexed = True
    path = str(tmp_path / "b.py")
    workspace.open(path, text)
    first = text.replace("def run(x):\n", "def run(x):\n    y = 1\n")
    workspace.update(path, first, exact=False)
    second = first.replace("    y = 1\n", "    y = 2\n")  # the same summary: the index is still stale
    workspace.update(path, second, exact=False)
    assert [(d.line, d.scope) for d in workspace.documents[path].diagnostics] == [(8, "compiled")]
    assert workspace.settle() == set()


def test_an_edit_is_linted_with_the_documents_memo_and_summarized_when_edits_pause(tmp_path: Path):
    """A re-lint parses only the functions the edit changed (:mod:`zlint.engine.incremental`);
    its summary waits for :meth:`Workspace.settle`."""
    other = "def other(x):\n    if x.size(1) == 1:\n        return x\n    return x\n"
    text = HELPER + "\n\n" + other + "\n\ndef unread():\n    return 1\n"
    workspace = Workspace([tmp_path])
    workspace.index_workspace()
    path = str(tmp_path / "a.py")
    workspace.open(path, text)
    document = workspace.documents[path]
    assert (document.memo.linted, document.memo.reused) == (3, 0)  # the module, helper, other
    edited = text.replace("def other(x):\n", "def other(x):\n    y = x\n")
    workspace.update(path, edited, exact=False)
    assert (document.memo.linted, document.memo.reused) == (1, 2)
    assert [(d.code, d.line) for d in document.diagnostics] == [("ZL101", 2), ("ZL101", 9)]
    assert document.unsummarized is not None and workspace.stale
    workspace.settle()
    assert document.unsummarized is None and not workspace.stale
    assert workspace._summaries[path] == summary_of(path, parse_source(edited, path))


def test_config_changed_follows_the_files_the_settings_depend_on(tmp_path: Path):
    """The files that decide a setting are the pyproject.toml from the file's directory up to the
    one in effect: a change there counts, one above it or beside it does not."""
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.zlint]\nignore = ["ZL201"]\n')
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\n")  # above the one in effect
    (tmp_path / "beside").mkdir()
    workspace = Workspace([project])
    path = str(project / "pkg" / "model.py")
    workspace.open(path, "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    assert not workspace.config_changed()
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL2"]\n')
    (tmp_path / "beside" / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL2"]\n')
    assert not workspace.config_changed()
    (project / "pyproject.toml").write_text('[tool.zlint]\nignore = ["ZL201"]\n')  # rewritten, the same
    assert not workspace.config_changed()
    (project / "pkg" / "pyproject.toml").write_text('[tool.zlint]\nignore = ["ZL301"]\n')  # nearer: takes over
    assert workspace.config_changed()
    assert workspace.reload_settings() == {path}
    assert workspace.documents[path].diagnostics == []
    assert not workspace.config_changed()  # what the reload read is the new reference
    (project / "pkg" / "pyproject.toml").unlink()
    assert workspace.config_changed()


def test_config_changed_notices_a_broken_pyproject_mended(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.zlint]\nselect = 3\n")
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "model.py")
    workspace.open(path, "import torch\n\n\n@torch.compile\ndef f(x):\n    return x.item()\n")
    assert workspace.config_errors and not workspace.config_changed()
    (tmp_path / "pyproject.toml").write_text('[tool.zlint]\nselect = ["ZL1"]\n')
    assert workspace.config_changed()
    workspace.reload_settings()
    assert workspace.config_errors == [] and workspace.documents[path].diagnostics == []


def test_a_document_that_never_parsed_has_not_linted(tmp_path: Path):
    workspace = Workspace([tmp_path])
    path = str(tmp_path / "b.py")
    workspace.open(path, CALLER + "def broken(:\n")
    document = workspace.documents[path]
    assert document.error is not None and not document.linted and document.diagnostics == []
    workspace.update(path, CALLER)
    workspace.update(path, CALLER + "def broken(:\n")
    assert document.error is not None and document.linted
