"""Source: sgl-project/sglang, python/sglang/srt/layers/logits_processor.py
(LogitsProcessor.forward, pruning hidden states to the last token of each sequence).

Rewritten: in extend mode the last position of every request is found with a cumulative sum of
the per-request lengths and gathered by integer indexing; decode mode keeps every row. The mode
is a Python flag of the batch, not a size.
"""

import torch
import torch.nn as nn


class LastTokenLogits(nn.Module):
    def __init__(self, hidden: int = 16, vocab: int = 32, is_decode: bool = False) -> None:
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.is_decode = is_decode

    def forward(self, hidden_states, extend_seq_lens):
        if self.is_decode:
            pruned = hidden_states
        else:
            last_index = torch.cumsum(extend_seq_lens, dim=0) - 1
            pruned = hidden_states[last_index]
        logits = self.lm_head(pruned)
        return logits.float()


CASE = dict(
    entry=lambda: LastTokenLogits(),
    make_inputs=lambda n: (torch.randn(3 * n, 16), torch.full((n,), 3)),
    dims=[(0, 0), (1, 0)],
    sizes=(2, 3, 5, 1, 8),
)
