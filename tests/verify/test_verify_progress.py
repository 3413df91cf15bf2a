"""The ``--verify`` progress line: drawn on a terminal only, one line redrawn in place."""

from __future__ import annotations

import io

from zlint.verify.progress import Progress, line


def test_the_line_names_the_function_being_verified():
    assert line(1, 4, "Block.forward") == f"zlint --verify [{'#' * 7}{'.' * 23}] 1/4 Block.forward"
    assert line(4, 4, "Block.forward") == f"zlint --verify [{'#' * 30}] 4/4"


def test_redraws_wipe_the_longer_line_and_the_last_one_ends_it():
    out = io.StringIO()
    progress = Progress(out)
    progress.starting()
    progress(0, 1, "f")
    progress(1, 1, "")
    text = out.getvalue()
    assert text.count("\r") == 3 and text.endswith("] 1/1  \n")  # padded over the 2 chars of " f"
    starting = "zlint --verify: starting a worker (importing torch) ..."
    assert text.split("\r")[2].startswith(line(0, 1, "f")) and len(text.split("\r")[2]) == len(starting)


def test_not_a_terminal_no_progress(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert Progress.for_terminal() is None
