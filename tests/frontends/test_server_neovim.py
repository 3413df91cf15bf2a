"""The Neovim snippets of docs/editors.md, each run in a real Neovim (headless) against
``zlint server``: the diagnostics arrive, and a pyproject.toml changed on disk applies when the
Python file is saved (Neovim registers no file watchers for a server).

Runs the ``nvim`` on PATH, or the binary ``ZLINT_TEST_NVIM`` names (to try another version);
skipped where there is none (CI may have none), and a snippet whose first line asks for a newer
Neovim than that one is skipped, saying so."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lsp_support import MODEL, ROOT, server_env

NVIM = os.environ.get("ZLINT_TEST_NVIM") or shutil.which("nvim")
#: the first line of each Lua block of the page: the oldest Neovim whose API the snippet uses
OLDEST = re.compile(r"-- Neovim (\d+)\.(\d+) or later\n")
#: waits for the buffer's diagnostics; then writes $ZLINT_NEW_PYPROJECT to pyproject.toml,
#: saves the buffer and waits for the diagnostics to change; writes both to $ZLINT_OUT (JSON).
#: Only what Neovim 0.7 has: vim.diagnostic, vim.wait, vim.fn.
REPORT = r"""
local function seen()
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(0)) do
    table.insert(out, { tostring(d.code), d.lnum, d.col })
  end
  table.sort(out, function(a, b) return a[2] < b[2] end)
  return out
end
local result = {}
vim.wait(30000, function() return #vim.diagnostic.get(0) > 0 end, 20)
result.first = seen()
local first = vim.fn.json_encode(result.first)
vim.fn.writefile(vim.split(os.getenv("ZLINT_NEW_PYPROJECT"), "\n"), "pyproject.toml")
vim.cmd("write")
vim.wait(15000, function() return vim.fn.json_encode(seen()) ~= first end, 20)
result.after = seen()
vim.fn.writefile({ vim.fn.json_encode(result) }, os.getenv("ZLINT_OUT"))
vim.cmd("qa!")
"""


def snippets() -> list[tuple[tuple[int, int], str]]:
    """Each Lua block of docs/editors.md with the version its first line names (0, 0 if none)."""
    text = (ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"^```lua\n(.*?)^```", text, re.M | re.S):
        oldest = OLDEST.match(block)
        found.append(((int(oldest.group(1)), int(oldest.group(2))) if oldest else (0, 0), block))
    return found


def nvim_version() -> tuple[int, int]:
    out = subprocess.run([NVIM, "--version"], capture_output=True, text=True, timeout=30).stdout
    found = re.match(r"NVIM v(\d+)\.(\d+)", out)
    assert found, out
    return int(found.group(1)), int(found.group(2))


def test_every_neovim_snippet_names_the_oldest_version_it_runs_on():
    found = snippets()
    assert len(found) >= 3  # 0.11's vim.lsp.config, 0.8's vim.lsp.start, 0.7's start_client
    assert all(version != (0, 0) for version, _ in found), [block[:60] for v, block in found if v == (0, 0)]
    assert (0, 7) in [version for version, _ in found]  # Debian 12's Neovim


@pytest.mark.skipif(NVIM is None, reason="no nvim on PATH (and no ZLINT_TEST_NVIM)")
@pytest.mark.parametrize(
    "oldest,snippet", snippets(), ids=[f"neovim-{v[0]}.{v[1]}" for v, _ in snippets()]
)
def test_the_snippet_shows_the_diagnostics_and_a_saved_config_applies(
    oldest: tuple[int, int], snippet: str, tmp_path: Path
):
    here = nvim_version()
    if here < oldest:
        pytest.skip(f"the snippet needs Neovim {oldest[0]}.{oldest[1]}; {NVIM} is {here[0]}.{here[1]}")
    project, bin_dir = tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    bin_dir.mkdir()
    (project / "model.py").write_text(MODEL)
    (project / "pyproject.toml").write_text("[tool.zlint]\n")
    # the snippets run `zlint server`: this one is the checkout's, with polling off, so that the
    # configuration applies because Neovim's didSave reached the server, not because time passed
    zlint = bin_dir / "zlint"
    zlint.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m zlint "$@" --config-poll 0\n')
    zlint.chmod(0o755)
    (tmp_path / "init.lua").write_text(snippet)
    (tmp_path / "report.lua").write_text(REPORT)
    out = tmp_path / "out.json"
    env = {
        **server_env(),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "ZLINT_OUT": str(out),
        "ZLINT_NEW_PYPROJECT": '[tool.zlint]\nignore = ["ZL201"]',
        # no user's plugins, state or logs: only the snippet
        **{name: str(tmp_path / name.lower()) for name in
           ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")},
    }
    proc = subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "-u", str(tmp_path / "init.lua"),
         "-c", f"luafile {tmp_path / 'report.lua'}", "model.py"],
        cwd=project, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert out.is_file(), f"Neovim reported nothing (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    assert "Error" not in proc.stderr + proc.stdout, proc.stderr + proc.stdout
    result = json.loads(out.read_text())
    assert result["first"] == [["ZL101", 5, 7], ["ZL201", 7, 13]]
    assert result["after"] == [["ZL101", 5, 7]]
