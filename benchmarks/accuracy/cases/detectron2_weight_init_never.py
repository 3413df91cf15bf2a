"""Source: facebookresearch/detectron2, detectron2/layers/... fvcore weight_init
(c2_xavier_fill, c2_msra_fill) as called from FPN.__init__ and the box head's __init__.

Rewritten: weights are initialised at construction from their fan-in (a parameter dim) and the
bias presence; forward is a plain conv stack. The init code never runs compiled.
"""

import math

import torch
import torch.nn as nn


def xavier_fill(module: nn.Module) -> None:
    fan_in = module.weight.size(1) * module.weight[0][0].numel()
    bound = math.sqrt(3.0 / max(fan_in, 1))
    nn.init.uniform_(module.weight, -bound, bound)
    if module.bias is not None:
        nn.init.constant_(module.bias, 0)


class ConvHead(nn.Module):
    def __init__(self, channels: int = 4, num_convs: int = 2) -> None:
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv2d(channels, channels, 3, padding=1) for _ in range(num_convs))
        for conv in self.convs:
            xavier_fill(conv)
            if conv.weight.shape[0] == channels and len(self.convs) > 1:
                nn.init.normal_(conv.weight, std=0.01)

    def forward(self, x):
        for conv in self.convs:
            x = torch.relu(conv(x))
        return x


CASE = dict(
    entry=lambda: ConvHead(),
    make_inputs=lambda n: (torch.randn(n, 4, 6, 6),),
)
