"""Source: speechbrain/speechbrain, speechbrain/decoders/ctc.py (ctc_greedy_decode,
filter_ctc_output).

Rewritten: per utterance (zip over the batch with relative lengths), the valid frames are cut
with narrow to round(length * T), the best token per frame taken, and repeats/blanks removed
from the Python list.
"""

import torch
import torch.nn as nn


def filter_ctc_output(string_pred, blank_id: int = 0):
    out = []
    prev = None
    for token in string_pred:
        if token != prev and token != blank_id:
            out.append(token)
        prev = token
    return out


class GreedyCTC(nn.Module):
    def forward(self, probabilities, seq_lens):
        batch_max_len = probabilities.shape[1]
        batch_outputs = []
        for seq, seq_len in zip(probabilities, seq_lens):
            actual_size = int(torch.round(seq_len * batch_max_len))
            scores, predictions = torch.max(seq.narrow(0, 0, actual_size), dim=1)
            batch_outputs.append(filter_ctc_output(predictions.tolist()))
        return batch_outputs


CASE = dict(
    entry=lambda: GreedyCTC(),
    make_inputs=lambda n: (torch.randn(n, 4, 5), torch.ones(n)),
    dims=[(0, 0), (1, 0)],
)
