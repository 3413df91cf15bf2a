"""Source: facebookresearch/fairseq, fairseq/models/transformer/transformer_encoder.py
(TransformerEncoderBase.forward_scriptable).

Rewritten: padded positions are zeroed with arithmetic on a 0-dim "has pads" tensor instead of
an if (the branch-free form written for scripting), and the padding mask is passed on.
"""

import torch
import torch.nn as nn


class PaddedEncoder(nn.Module):
    def __init__(self, vocab: int = 16, dim: int = 4, padding_idx: int = 1) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.embed_tokens = nn.Embedding(vocab, dim, padding_idx=padding_idx)
        self.layer = nn.Linear(dim, dim)

    def forward(self, src_tokens, return_all_hiddens: bool = False):
        encoder_padding_mask = src_tokens.eq(self.padding_idx)
        has_pads = encoder_padding_mask.any()
        x = self.embed_tokens(src_tokens)
        x = x * (1 - encoder_padding_mask.unsqueeze(-1).type_as(x) * has_pads.type_as(x))
        x = x.transpose(0, 1)
        encoder_states = []
        x = self.layer(x)
        if return_all_hiddens:
            encoder_states.append(x)
        return x, encoder_padding_mask, encoder_states


CASE = dict(
    entry=lambda: PaddedEncoder(),
    make_inputs=lambda n: (torch.randint(0, 16, (2, n)),),
    dims=[(0, 1)],
)
