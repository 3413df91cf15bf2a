"""Source: vllm-project/vllm, vllm/model_executor/layers/activation.py and
vllm/model_executor/layers/layernorm.py (the native fallbacks around custom ops, which make the
input contiguous before calling the kernel).

Rewritten: the input is made contiguous only when it is not already, then a SiLU-and-mul over
the static last dim runs; the token dim varies.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


class SiluAndMul(nn.Module):
    def forward(self, x):
        if not x.is_contiguous():
            x = x.contiguous()
        d = x.shape[-1] // 2
        output_shape = x.shape[:-1] + (d,)
        out = torch.empty(output_shape, dtype=x.dtype, device=x.device)
        out.copy_(F.silu(x[..., :d]) * x[..., d:])
        return out


CASE = dict(
    entry=lambda: SiluAndMul(),
    make_inputs=lambda n: (torch.randn(8, n).t(),),
    dims=[(0, 0)],
)
