"""Source: pyg-team/pytorch_geometric, torch_geometric/utils/to_dense_batch.py (to_dense_batch).

Rewritten: nodes of a mini-batch of graphs are scattered into a dense (graphs, max nodes, F)
tensor; the graph count and the largest graph are read back from the batch vector.
"""

import torch
import torch.nn as nn


def to_dense_batch(x, batch, fill_value: float = 0.0):
    batch_size = int(batch.max()) + 1
    num_nodes = torch.zeros(batch_size, dtype=torch.long).scatter_add_(0, batch, torch.ones_like(batch))
    cum_nodes = torch.cat([num_nodes.new_zeros(1), num_nodes.cumsum(dim=0)])
    max_num_nodes = int(num_nodes.max())
    tmp = torch.arange(batch.size(0)) - cum_nodes[batch]
    idx = tmp + (batch * max_num_nodes)
    size = [batch_size * max_num_nodes] + list(x.size())[1:]
    out = x.new_full(size, fill_value)
    out[idx] = x
    out = out.view([batch_size, max_num_nodes] + list(x.size())[1:])
    mask = torch.zeros(batch_size * max_num_nodes, dtype=torch.bool)
    mask[idx] = True
    return out, mask.view(batch_size, max_num_nodes)


class DenseReadout(nn.Module):
    def forward(self, x, batch):
        dense, mask = to_dense_batch(x, batch)
        return dense.sum(dim=1) / mask.sum(dim=1, keepdim=True).clamp(min=1)


CASE = dict(
    entry=lambda: DenseReadout(),
    make_inputs=lambda n: (torch.randn(2 * n, 4), torch.arange(2 * n) // 2),
    dims=[(0, 0), (1, 0)],
    sizes=(2, 3, 5, 1, 8),
)
