"""Source: pytorch/torchrec, torchrec/sparse/jagged_tensor.py (JaggedTensor.to_dense,
KeyedJaggedTensor.to_dict).

Rewritten: jagged values are cut into one tensor per row by the row lengths read back as a
Python list, then each row is summed.
"""

import torch
import torch.nn as nn


class JaggedRowSum(nn.Module):
    def forward(self, values, lengths):
        rows = torch.split(values, lengths.tolist())
        return torch.stack([row.sum() for row in rows])


CASE = dict(
    entry=lambda: JaggedRowSum(),
    make_inputs=lambda n: (torch.randn(2 * n), torch.full((n,), 2)),
    dims=[(0, 0), (1, 0)],
)
