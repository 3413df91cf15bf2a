"""Reading a workload file: validation (one-line errors), matching linted paths to recorded ones,
and the questions the linter asks of a function's parameters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zlint.workload.model import WorkloadError, load_workload


def write(path: Path, files: dict, **fields) -> Path:
    data = {"zlint_workload": 1, "command": ["/p/prog.py"], "cwd": "/p", "python": "3.11.7", "torch": None,
            "files": files, **fields}
    path.write_text(json.dumps(data))
    return path


def entry(lines=(), functions=()):
    return {"lines": list(lines), "functions": list(functions)}


SITE = "/venv/lib/python3.11/site-packages"


def test_a_copy_of_a_recorded_package_matches_by_the_longest_unique_suffix(tmp_path):
    workload = load_workload(write(tmp_path / "w.json", {
        f"{SITE}/pkg/models/llama/modeling.py": entry([3, 4]),
        f"{SITE}/pkg/utils.py": entry([1]),
        "/srv/app/lib/utils.py": entry([2]),
        "/a/shared/b.py": entry([5]),
        "/c/shared/b.py": entry([6]),
    }))
    checkout = tmp_path / "src"
    # four components shared with the site-packages file: the same module, linted from a checkout
    assert workload.ran(str(checkout / "pkg/models/llama/modeling.py"), 3) is True
    assert workload.ran(str(checkout / "pkg/models/llama/modeling.py"), 5) is False
    assert workload.ran(str(checkout / "pkg/utils.py"), 1) is True  # pkg/utils.py: only the first
    assert workload.ran(str(checkout / "lib/utils.py"), 2) is True
    # a file name alone is not enough, and two recorded files that share as much are ambiguous
    assert workload.ran(str(checkout / "other/utils.py"), 1) is None
    assert workload.ran("/z/shared/b.py", 5) is None
    assert workload.recorded_file("/z/shared/b.py") is False
    assert workload.recorded_file("/a/shared/b.py") is True  # its own path still matches


def test_a_symlinked_path_matches_by_real_path_first(tmp_path):
    real = tmp_path / "real" / "mod.py"
    real.parent.mkdir()
    real.write_text("x = 1\n")
    link = tmp_path / "link"
    link.symlink_to(real.parent)
    workload = load_workload(write(tmp_path / "w.json", {str(real): entry([1])}))
    assert workload.ran(str(link / "mod.py"), 1) is True
    assert workload.ran(str(link / "mod.py"), 2) is False


FUNCTION = {
    "name": "Head.forward", "line": 10, "calls": 6,
    "params": {
        "boxes": {"kind": "tensor", "ranks": [2], "dims": [[0, 1, 2, 3], [4]]},
        "n": {"kind": "int", "values": [2, 3, 5]},
        "feats": {"kind": "sequence", "len": [1, 2],
                  "items": {"kind": "tensor", "ranks": [4], "dims": [[1], [8], [16, 32], [16]]}},
        "kw": {"kind": "mapping", "keys": {
            "mask": {"kind": "tensor", "ranks": [2], "dims": [[2], [5, 7]]},
            "scale": {"kind": "tensor", "ranks": [1], "dims": [[1]]},
        }},
        "steps": {"kind": "int", "values": list(range(64)), "capped": True},
    },
}


def test_parameter_records_answer_per_dim(tmp_path):
    workload = load_workload(write(tmp_path / "w.json", {"/p/head.py": entry([10, 11], [FUNCTION])}))
    function = workload.function_at("/p/head.py", 10)
    assert (function.name, function.line, function.calls) == ("Head.forward", 10, 6)
    boxes = function.param("boxes")
    assert boxes.sizes(0) == (0, 1, 2, 3) and boxes.sizes(-1) == (4,)
    assert boxes.varies(0) and not boxes.varies(1)
    assert boxes.reaches_zero_or_one(0) and not boxes.reaches_zero_or_one(1)
    assert boxes.sizes(2) == () and not boxes.varies(2) and boxes.sizes() == ()  # a dim never seen
    assert function.param("n").sizes() == (2, 3, 5) and not function.param("n").reaches_zero_or_one()
    feats = function.param("feats")  # a list's dims are its tensors' dims
    assert feats.lengths == (1, 2) and feats.varies(2) and not feats.varies(0) and feats.reaches_zero_or_one(0)
    kw = function.param("kw")  # a dict's dims: over its keys, or one key
    assert kw.sizes(0) == (1, 2) and kw.sizes(1) == (5, 7) and kw.key("scale").sizes(0) == (1,)
    assert kw.key("other") is None
    assert function.param("steps").capped and not boxes.capped
    assert function.param("missing") is None
    assert workload.function_at("/p/head.py", 11) is None
    assert workload.function_at("/p/other.py", 10) is None


def test_a_decorated_function_is_found_from_its_def_line(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("import functools\n\n\n@functools.lru_cache(\n    maxsize=None,\n)\ndef f(n):\n    return n\n")
    workload = load_workload(write(tmp_path / "w.json", {
        str(source): entry([1, 4, 8], [{"name": "f", "line": 4, "calls": 2, "params": {}}]),
    }))
    assert workload.function_at(str(source), 7).name == "f"  # the def line
    assert workload.function_at(str(source), 4).name == "f"  # the decorator line
    assert workload.function_at(str(source), 5) is None


@pytest.mark.parametrize(
    "content, message",
    [
        (None, "{path}: no such workload file (record one with `zlint record`)"),
        ("{", "{path}: not a zlint workload file (not JSON)"),
        (b"\xff\xfe", "{path}: not a zlint workload file (not JSON)"),
        ('{"name": "package", "version": "1.0"}', "{path}: not a zlint workload file (no `zlint_workload` key)"),
        ("[1, 2]", "{path}: not a zlint workload file (no `zlint_workload` key)"),
        ('{"zlint_workload": 2}', "{path}: workload format 2 is not supported (this zlint reads 1)"),
        (
            '{"zlint_workload": 1, "command": "prog.py"}',
            "{path}: malformed workload: command should be a list of strings",
        ),
    ],
)
def test_a_file_that_is_not_a_workload_is_one_line(tmp_path, content, message):
    path = tmp_path / "w.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == message.format(path=path)


@pytest.mark.parametrize(
    "files, message",
    [
        ({"/p/a.py": {"lines": [1, "2"], "functions": []}}, "files['/p/a.py'].lines should be a list of integers"),
        ({"/p/a.py": {"lines": [1]}}, "files['/p/a.py'].functions should be a list"),
        ({"/p/a.py": entry([1], [{"name": "f", "line": 1, "calls": 1, "params": {"x": {"kind": "float"}}}])},
         "files['/p/a.py'].functions[0].params['x'].kind should be one of tensor, int, sequence, mapping"),
        ({"/p/a.py": entry([1], [{"name": "f", "line": "1", "calls": 1, "params": {}}])},
         "files['/p/a.py'].functions[0].line should be an integer"),
        ({"/p/a.py": entry([1], [{"name": "f", "line": 1, "calls": 1,
                                  "params": {"x": {"kind": "tensor", "ranks": [1], "dims": [[1.5]]}}}])},
         "files['/p/a.py'].functions[0].params['x'].dims[0] should be a list of integers"),
    ],
)
def test_a_malformed_workload_names_the_bad_field(tmp_path, files, message):
    path = write(tmp_path / "w.json", files)
    with pytest.raises(WorkloadError) as caught:
        load_workload(path)
    assert str(caught.value) == f"{path}: malformed workload: {message}"


def test_a_directory_is_not_a_workload(tmp_path):
    with pytest.raises(WorkloadError, match=f"^{tmp_path}: is a directory, not a workload file$"):
        load_workload(tmp_path)
