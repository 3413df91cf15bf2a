"""Source: vllm-project/vllm, vllm/model_executor/layers/vocab_parallel_embedding.py
(get_masked_input_and_mask, VocabParallelEmbedding.forward).

Rewritten: token ids outside this shard's vocabulary range are mapped to 0 with masks built by
comparisons and arithmetic, looked up, and their embeddings zeroed with masked_fill; no
branch reads a size or a value.
"""

import torch
import torch.nn as nn


def get_masked_input_and_mask(input_, start: int, end: int):
    vocab_mask = (input_ >= start) & (input_ < end)
    valid_offset = start * vocab_mask
    input_ = vocab_mask * (input_ - valid_offset)
    return input_, ~vocab_mask


class ShardedEmbedding(nn.Module):
    def __init__(self, start: int = 8, end: int = 16, dim: int = 4, tp_size: int = 2) -> None:
        super().__init__()
        self.start, self.end, self.tp_size = start, end, tp_size
        self.weight = nn.Parameter(torch.randn(end - start, dim))

    def forward(self, input_):
        if self.tp_size > 1:
            masked_input, input_mask = get_masked_input_and_mask(input_, self.start, self.end)
        else:
            masked_input, input_mask = input_, None
        output = nn.functional.embedding(masked_input.long(), self.weight)
        if self.tp_size > 1:
            output = output.masked_fill(input_mask.unsqueeze(-1), 0)
        return output


CASE = dict(
    entry=lambda: ShardedEmbedding(),
    make_inputs=lambda n: (torch.arange(n) % 20,),
)
