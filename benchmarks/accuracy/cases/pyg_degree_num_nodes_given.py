"""Source: pyg-team/pytorch_geometric, torch_geometric/utils/degree.py (degree) and
torch_geometric/nn/conv/gcn_conv.py (gcn_norm).

Rewritten: symmetric GCN normalisation where the node count is always passed from x.size(0)
(so no index is read back); degrees are built with scatter_add into a zeros tensor of that size.
"""

import torch
import torch.nn as nn


def degree(index, num_nodes: int, dtype=None):
    out = torch.zeros((num_nodes,), dtype=dtype, device=index.device)
    one = torch.ones((index.size(0),), dtype=out.dtype, device=out.device)
    return out.scatter_add_(0, index, one)


class GCNLayer(nn.Module):
    def __init__(self, dim: int = 4) -> None:
        super().__init__()
        self.lin = nn.Linear(dim, dim, bias=False)

    def forward(self, x, edge_index):
        num_nodes = x.size(0)
        row, col = edge_index[0], edge_index[1]
        deg = degree(col, num_nodes, dtype=x.dtype)
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt = deg_inv_sqrt.masked_fill(deg_inv_sqrt == float("inf"), 0)
        norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]
        h = self.lin(x)
        out = torch.zeros_like(h).index_add_(0, col, h[row] * norm.unsqueeze(-1))
        return out


CASE = dict(
    entry=lambda: GCNLayer(),
    make_inputs=lambda n: (torch.randn(n, 4), torch.stack([torch.arange(n), (torch.arange(n) + 1) % max(n, 1)])),
    dims=[(0, 0), (1, 1)],
)
