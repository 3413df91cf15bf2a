"""Source: facebookresearch/fairseq, fairseq/models/transformer/transformer_decoder.py
(TransformerDecoderBase.buffered_future_mask).

Rewritten: the cached future mask is rebuilt when it is empty or smaller than the current
length, then sliced to that length.
"""

import torch
import torch.nn as nn


class FutureMasked(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self._future_mask = torch.empty(0)

    def buffered_future_mask(self, tensor):
        dim = tensor.size(0)
        if self._future_mask.size(0) == 0 or self._future_mask.size(0) < dim:
            self._future_mask = torch.triu(torch.full([dim, dim], float("-inf")), 1)
        return self._future_mask[:dim, :dim]

    def forward(self, x):
        scores = x @ x.transpose(0, 1)
        return (scores + self.buffered_future_mask(x)).softmax(-1)


CASE = dict(
    entry=lambda: FutureMasked(),
    make_inputs=lambda n: (torch.randn(n, 4),),
)
