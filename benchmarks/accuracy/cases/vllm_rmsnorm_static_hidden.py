"""Source: vllm-project/vllm, vllm/model_executor/layers/layernorm.py (RMSNorm.forward_native).

Rewritten: RMS norm with an optional residual; the hidden size (a static feature dim) is
checked against the configured width, and an optional variance override slices that dim.
"""

import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, hidden_size: int = 16, eps: float = 1e-6, var_override=None) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        self.eps = eps
        self.var_override = var_override
        self.weight = nn.Parameter(torch.ones(hidden_size))

    def forward(self, x, residual=None):
        orig_dtype = x.dtype
        x = x.to(torch.float32)
        if residual is not None:
            x = x + residual.to(torch.float32)
            residual = x.to(orig_dtype)
        hidden_size = x.shape[-1]
        if hidden_size != self.hidden_size:
            raise ValueError(f"expected hidden size {self.hidden_size}, got {hidden_size}")
        if self.var_override is None:
            x_var = x
        else:
            if hidden_size < self.var_override:
                raise ValueError("override larger than hidden size")
            x_var = x[:, :, : self.var_override]
        variance = x_var.pow(2).mean(dim=-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        x = x.to(orig_dtype) * self.weight
        return x if residual is None else (x, residual)


CASE = dict(
    entry=lambda: RMSNorm(),
    make_inputs=lambda n: (torch.randn(n, 16), torch.randn(n, 16)),
    dims=[(0, 0), (1, 0)],
)
