"""Rules' ``may_report`` pre-checks (fast path): they may only say "no" where the rule is silent.

ZL415 has none: on a 1-in-10 slice of transformers/models every file is parsed for other rules
anyway, so an ``ast`` re-implementation of the rule saved no parse (see the fast path's notes).
Its cases stay here as fast == full checks of the rule itself."""

from __future__ import annotations

import ast

import pytest

from zlint.core.settings import Settings
from zlint.engine.lint import lint_source
from zlint.rules.zl412_unknown_compile_backend import UnknownCompileBackend

ALL = Settings(select=("ALL",))

REPORTED = {
    "plain": "import torch\ny = torch.no_such_function(1)\n",
    "alias": "import torch._dynamo as dyn\ndef f():\n    dyn.no_such_thing()\n",
    "from_namespace": "from torch import compiler as c\nc.no_such_api()\n",
    "split_chain": "import torch\nx = (torch  # a comment\n     ._dynamo\n     .config\n     .no_such_key)\n",
    "parenthesized_root": "import torch\nx = (torch).no_such_function\n",
    "continuation": "import torch\nx = torch. \\\n    no_such_function\n",
    "from_import": "from torch._dynamo import no_such_name\n",
    "dotted_import": "import torch.no_such_module\n",
    "import_in_def": "def f():\n    import torch as T\n    return T.no_such_function\n",
    "nested_config": "import torch\ntorch._inductor.config.triton.no_such_option = True\n",
}

SILENT = {
    "known_attributes": "import torch\nimport torch.nn.functional as F\ny = torch.zeros(3)\nz = F.pad(y, (1, 1))\n",
    "unknown_only_elsewhere": "import numpy as np\nimport torch\nx = np.no_such_thing\ny = torch.zeros(1)\n",
    "attribute_of_attribute": "import torch\nclass K:\n    def f(self):\n        return self.torch.no_such\n",
    "no_import": "x = torch.no_such_function\n",
}


@pytest.mark.parametrize("full_path", [False, True], ids=["fast", "full"])
@pytest.mark.parametrize("name", sorted(REPORTED))
def test_zl415_reports_every_spelling_on_both_paths(name, full_path):
    text = REPORTED[name]
    codes = [d.code for d in lint_source(text, "m.py", ALL, full_path=full_path).diagnostics]
    assert codes.count("ZL415") == 1, codes


@pytest.mark.parametrize("full_path", [False, True], ids=["fast", "full"])
@pytest.mark.parametrize("name", sorted(SILENT))
def test_zl415_stays_quiet_where_nothing_can_be_missing(name, full_path):
    text = SILENT[name]
    assert "ZL415" not in [d.code for d in lint_source(text, "m.py", ALL, full_path=full_path).diagnostics]


def test_zl412_precheck_ignores_the_word_optimize_outside_calls():
    quiet = '"""We optimize the model."""\nimport torch\nx = 1  # optimize later\n'
    call = 'import torch\n@torch._dynamo.optimize("no_such_backend")\ndef f(x):\n    return x\n'
    renamed = 'from torch._dynamo import optimize as opt\nf = opt("no_such_backend")(len)\n'
    assert not UnknownCompileBackend.may_report(quiet, ast.parse(quiet), ALL)
    for text in (call, renamed):
        assert UnknownCompileBackend.may_report(text, ast.parse(text), ALL)
        fast = lint_source(text, "m.py", ALL, full_path=False)
        assert "ZL412" in [d.code for d in fast.diagnostics]
