"""Source: facebookresearch/fairseq, fairseq/incremental_decoding_utils.py
(FairseqIncrementalState._get_full_incremental_state_key, get/set_incremental_state).

Rewritten: cached keys/values are stored in a dict under a string key built from a module id
and a name (no sizes in it); the step appends the new key to the cached ones.
"""

import uuid

import torch
import torch.nn as nn


class IncrementalAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self._incremental_state_id = str(uuid.uuid4())

    def _full_key(self, key: str) -> str:
        return "{}.{}".format(self._incremental_state_id, key)

    def forward(self, k, incremental_state: dict):
        full_key = self._full_key("attn_state")
        saved = incremental_state.get(full_key)
        if saved is not None:
            k = torch.cat([saved["prev_key"], k], dim=1)
        incremental_state[full_key] = {"prev_key": k}
        return k.mean(dim=1)


CASE = dict(
    entry=lambda: IncrementalAttention(),
    make_inputs=lambda n: (torch.randn(2, n, 4), {}),
    dims=[(0, 1)],
)
