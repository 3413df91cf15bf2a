"""transformers whisper _compute_mask_indices: line 142 (ZL302 .tolist()) and 123 (runtime-only
ZL802 np.random.rand(1).item()), called as SpecAugment does."""
import torch
from transformers.models.whisper import modeling_whisper as w
from _common import sweep

path = w.__file__
f = w._compute_mask_indices
sweep(f, lambda n: (((n, 50), 0.05, 10), {"attention_mask": torch.ones(n, 50, dtype=torch.long), "min_masks": 2}),
      [2, 3, 4], path, label="batch varies")
