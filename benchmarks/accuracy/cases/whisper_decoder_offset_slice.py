"""Source: openai/whisper, whisper/model.py (TextDecoder.forward).

Rewritten: the token embedding gets the positional rows from the cache offset to offset plus
the new token count (a slice of a parameter by a varying size); the causal mask buffer is
sliced to the context length.
"""

import torch
import torch.nn as nn


class TextDecoder(nn.Module):
    def __init__(self, n_vocab: int = 16, n_ctx: int = 12, n_state: int = 8) -> None:
        super().__init__()
        self.token_embedding = nn.Embedding(n_vocab, n_state)
        self.positional_embedding = nn.Parameter(torch.randn(n_ctx, n_state))
        mask = torch.empty(n_ctx, n_ctx).fill_(-float("inf")).triu_(1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x, kv_cache=None):
        offset = next(iter(kv_cache.values())).shape[1] if kv_cache else 0
        h = self.token_embedding(x) + self.positional_embedding[offset : offset + x.shape[-1]]
        n_ctx = h.shape[1]
        scores = h @ h.transpose(1, 2) + self.mask[:n_ctx, :n_ctx]
        return scores.softmax(-1) @ h


CASE = dict(
    entry=lambda: TextDecoder(),
    make_inputs=lambda n: (torch.randint(0, 16, (1, n)),),
    dims=[(0, 1)],
)
