"""Source: espnet/espnet, espnet/nets/pytorch_backend/nets_utils.py (get_activation) and
espnet/nets/pytorch_backend/transformer/positionwise_feed_forward.py (PositionwiseFeedForward).

Rewritten: the activation is chosen by a configured string; the feed-forward's forward branches
on that string attribute and on a boolean flag, never on a size.
"""

import torch
import torch.nn as nn


class PositionwiseFeedForward(nn.Module):
    def __init__(self, idim: int = 4, hidden: int = 8, activation: str = "swish", macaron: bool = True) -> None:
        super().__init__()
        self.w_1 = nn.Linear(idim, hidden)
        self.w_2 = nn.Linear(hidden, idim)
        self.activation = activation
        self.macaron = macaron

    def act(self, x):
        if self.activation == "relu":
            return torch.relu(x)
        elif self.activation == "swish":
            return x * torch.sigmoid(x)
        elif self.activation == "tanh":
            return torch.tanh(x)
        raise ValueError(f"unknown activation {self.activation}")

    def forward(self, x):
        out = self.w_2(self.act(self.w_1(x)))
        return x + 0.5 * out if self.macaron else x + out


CASE = dict(
    entry=lambda: PositionwiseFeedForward(),
    make_inputs=lambda n: (torch.randn(2, n, 4),),
    dims=[(0, 1)],
)
