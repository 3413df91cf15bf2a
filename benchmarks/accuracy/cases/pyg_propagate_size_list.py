"""Source: pyg-team/pytorch_geometric, torch_geometric/nn/conv/message_passing.py
(MessagePassing._check_input, _set_size, _collect, aggregate).

Rewritten: the source/target node counts are recorded in a two-slot list (filled from
src.size(node_dim) when missing, compared with None only) and then used as the output size of
the scatter.
"""

import torch
import torch.nn as nn


class SumPropagate(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.node_dim = 0

    def _set_size(self, size, dim: int, src) -> None:
        the_size = size[dim]
        if the_size is None:
            size[dim] = src.size(self.node_dim)

    def forward(self, x, edge_index):
        size = [None, None]
        self._set_size(size, 0, x)
        self._set_size(size, 1, x)
        x_j = x.index_select(self.node_dim, edge_index[0])
        out = torch.zeros((size[1], x.size(-1)), dtype=x.dtype)
        return out.index_add_(0, edge_index[1], x_j)


CASE = dict(
    entry=lambda: SumPropagate(),
    make_inputs=lambda n: (torch.randn(n, 4), torch.stack([torch.arange(n), torch.arange(n).flip(0)])),
    dims=[(0, 0), (1, 1)],
)
