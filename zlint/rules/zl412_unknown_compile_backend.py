"""ZL412: a ``backend=`` string that is not a registered dynamo backend."""

from __future__ import annotations

import libcst as cst

from zlint.rules.api import compile_call, literal_string
from zlint.rules.compile_checks import TorchDataRule, did_you_mean, version_note

#: backends that other packages register when installed (torch does not know them)
PLUGIN_BACKENDS = frozenset({
    "tensorrt", "torch_tensorrt", "openvino", "ipex", "hidet", "onnxrt", "tvm", "mindie",
    "npu", "hpu_backend", "xla", "iree_turbine", "turbine_cpu", "magi_compile",
})


class UnknownCompileBackend(TorchDataRule):
    code = "ZL412"
    about_compiled_code = False  # about a call site, wherever it sits
    name = "unknown-compile-backend"
    summary = "torch.compile(backend=...) names a backend torch does not register"

    def visit_Call(self, node: cst.Call) -> None:
        call = compile_call(node, self.context.imports)
        if call is not None:
            arg = call.keywords.get("backend")
            if arg is not None:
                self.check_backend(arg.value)
        elif self.context.imports.qualify(node.func) == "torch._dynamo.optimize" and node.args:
            first = node.args[0]
            if first.keyword is None and not first.star:
                self.check_backend(first.value)
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value == "backend":
                    self.check_backend(arg.value)

    def check_backend(self, node: cst.BaseExpression) -> None:
        backend = literal_string(node)
        if backend is None or backend in self.data.backends or backend in PLUGIN_BACKENDS:
            return
        self.report(
            node,
            f"backend={backend!r} is unknown to {version_note(self.data)}: raises InvalidBackend; "
            + (did_you_mean(backend, self.data.backends).strip(" ()") or "use 'inductor' or a listed backend"),
        )
