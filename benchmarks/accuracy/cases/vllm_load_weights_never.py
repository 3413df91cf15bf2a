"""Source: vllm-project/vllm, vllm/model_executor/models/llama.py (LlamaForCausalLM.load_weights,
stacked_params_mapping) and vllm/model_executor/model_loader/weight_utils.py
(default_weight_loader).

Rewritten: checkpoint tensors are mapped onto fused parameters (q/k/v into qkv) by name, rotary
caches are skipped, shapes are asserted before copying into a slice. Runs at load time only.
"""

import torch
import torch.nn as nn


def default_weight_loader(param, loaded_weight) -> None:
    assert param.size() == loaded_weight.size(), f"shape mismatch {param.size()} vs {loaded_weight.size()}"
    param.data.copy_(loaded_weight)


class FusedQKV(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.dim = dim
        self.qkv_proj = nn.Linear(dim, 3 * dim, bias=False)

    def load_weights(self, weights) -> None:
        shard = {"q_proj": 0, "k_proj": 1, "v_proj": 2}
        for name, loaded_weight in weights:
            if "rotary_emb.inv_freq" in name:
                continue
            for part, index in shard.items():
                if part in name:
                    rows = self.qkv_proj.weight.data.narrow(0, index * self.dim, loaded_weight.shape[0])
                    default_weight_loader(rows, loaded_weight)
                    break

    def forward(self, x):
        q, k, v = self.qkv_proj(x).chunk(3, dim=-1)
        return q * k.sigmoid() + v


CASE = dict(
    entry=lambda: FusedQKV(),
    make_inputs=lambda n: (torch.randn(n, 4),),
)
