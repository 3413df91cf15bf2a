"""Source: meta-llama/llama, llama/model.py (Transformer.forward, the causal mask).

Rewritten: a causal mask is built only when more than one token is fed (prefill); a decode
step of one token skips it. The mask is padded on the left for the cached prefix.
"""

import torch
import torch.nn as nn


class TinyLlama(nn.Module):
    def __init__(self, vocab: int = 32, dim: int = 16) -> None:
        super().__init__()
        self.tok_embeddings = nn.Embedding(vocab, dim)
        self.output = nn.Linear(dim, vocab, bias=False)

    def forward(self, tokens, start_pos: int = 0):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        mask = None
        if seqlen > 1:
            mask = torch.full((seqlen, seqlen), float("-inf"), device=tokens.device)
            mask = torch.triu(mask, diagonal=1)
            mask = torch.hstack([torch.zeros((seqlen, start_pos), device=tokens.device), mask]).type_as(h)
        scores = h @ h.transpose(1, 2)
        if mask is not None:
            scores = scores + mask
        h = torch.softmax(scores, dim=-1) @ h
        return self.output(h).float()


CASE = dict(
    entry=lambda: TinyLlama(),
    make_inputs=lambda n: (torch.randint(0, 32, (2, n)),),
    dims=[(0, 1)],
)
