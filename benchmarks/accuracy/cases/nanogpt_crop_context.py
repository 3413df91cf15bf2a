"""Source: karpathy/nanoGPT, model.py (GPT.generate, the context crop; configure_optimizers).

Rewritten: the context is cropped to the block size when it grows longer (a ternary on the
sequence length against the config), then the last position's logits are scaled. The optimizer
grouping by parameter rank runs once at setup and is never compiled.
"""

import torch
import torch.nn as nn


class CroppingLM(nn.Module):
    def __init__(self, block_size: int = 4, vocab: int = 32, width: int = 16) -> None:
        super().__init__()
        self.block_size = block_size
        self.emb = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)

    def forward(self, idx, temperature: float = 1.0):
        idx_cond = idx if idx.size(1) <= self.block_size else idx[:, -self.block_size :]
        logits = self.head(self.emb(idx_cond))
        return logits[:, -1, :] / temperature

    def param_groups(self, weight_decay: float):
        params = {n: p for n, p in self.named_parameters() if p.requires_grad}
        decay = [p for n, p in params.items() if p.dim() >= 2]
        no_decay = [p for n, p in params.items() if p.dim() < 2]
        return [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]


CASE = dict(
    entry=lambda: CroppingLM(),
    make_inputs=lambda n: (torch.randint(0, 32, (2, n)),),
    dims=[(0, 1)],
    sizes=(2, 3, 5, 1, 8),
)
