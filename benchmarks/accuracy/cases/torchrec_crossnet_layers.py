"""Source: pytorch/torchrec, torchrec/modules/crossnet.py (CrossNet.forward, LowRankCrossNet).

Rewritten: explicit feature crossing; the loop runs over the configured number of layers (an
int attribute) and the parameter list, not over the batch.
"""

import torch
import torch.nn as nn


class CrossNet(nn.Module):
    def __init__(self, in_features: int = 4, num_layers: int = 2) -> None:
        super().__init__()
        self._num_layers = num_layers
        self.kernels = nn.ParameterList(nn.Parameter(torch.randn(in_features, in_features) * 0.1) for _ in range(num_layers))
        self.bias = nn.ParameterList(nn.Parameter(torch.zeros(in_features, 1)) for _ in range(num_layers))

    def forward(self, input):
        x_0 = input.unsqueeze(2)
        x_l = x_0
        for layer in range(self._num_layers):
            xl_w = torch.matmul(self.kernels[layer], x_l)
            x_l = x_0 * (xl_w + self.bias[layer]) + x_l
        return torch.squeeze(x_l, dim=2)


CASE = dict(
    entry=lambda: CrossNet(),
    make_inputs=lambda n: (torch.randn(n, 4),),
)
