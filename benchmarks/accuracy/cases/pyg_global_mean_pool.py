"""Source: pyg-team/pytorch_geometric, torch_geometric/nn/pool/glob.py (global_mean_pool).

Rewritten: graph-level mean pooling; the reduction dim comes from the input's rank, and when no
graph count is given it is read from the largest batch index.
"""

import torch
import torch.nn as nn


def global_mean_pool(x, batch, size=None):
    dim = -1 if x.dim() == 1 else -2
    if batch is None:
        return x.mean(dim=dim, keepdim=x.dim() <= 2)
    size = int(batch.max().item() + 1) if size is None else size
    out = torch.zeros(size, x.size(-1), dtype=x.dtype).index_add_(0, batch, x)
    count = torch.zeros(size, dtype=x.dtype).index_add_(0, batch, torch.ones_like(batch, dtype=x.dtype))
    return out / count.clamp(min=1).unsqueeze(-1)


class GraphReadout(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.head = nn.Linear(dim, 2)

    def forward(self, x, batch):
        return self.head(global_mean_pool(x, batch))


CASE = dict(
    entry=lambda: GraphReadout(),
    make_inputs=lambda n: (torch.randn(2 * n, 4), torch.arange(2 * n) // 2),
    dims=[(0, 0), (1, 0)],
    sizes=(2, 3, 5, 1, 8),
)
