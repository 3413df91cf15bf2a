"""Source: pyg-team/pytorch_geometric, torch_geometric/utils/num_nodes.py (maybe_num_nodes)
and torch_geometric/utils/softmax.py (softmax).

Rewritten: an edge-wise softmax grouped by target node; when the node count is not passed it
is inferred from the largest index (0 for an empty index tensor).
"""

import torch
import torch.nn as nn


def maybe_num_nodes(edge_index, num_nodes=None):
    if num_nodes is not None:
        return num_nodes
    return int(edge_index.max()) + 1 if edge_index.numel() > 0 else 0


def segment_softmax(src, index, num_nodes=None):
    N = maybe_num_nodes(index, num_nodes)
    src_max = torch.zeros(N, dtype=src.dtype).scatter_reduce(0, index, src, reduce="amax", include_self=False)
    out = (src - src_max.index_select(0, index)).exp()
    out_sum = torch.zeros(N, dtype=src.dtype).scatter_add_(0, index, out) + 1e-16
    return out / out_sum.index_select(0, index)


class EdgeAttention(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.att = nn.Linear(dim, 1)

    def forward(self, edge_attr, target):
        alpha = self.att(edge_attr).squeeze(-1)
        return segment_softmax(alpha, target)


CASE = dict(
    entry=lambda: EdgeAttention(),
    make_inputs=lambda n: (torch.randn(n, 4), torch.arange(n) // 2),
    dims=[(0, 0), (1, 0)],
)
