"""transformers wav2vec2 _compute_mask_indices: line 160 (attention_mask...tolist(): ZL302) and
141 (np.random.rand(1).item(): runtime-only ZL802), called as SpecAugment does during training."""
import torch
from transformers.models.wav2vec2 import modeling_wav2vec2 as w
from _common import sweep

path = w.__file__
f = w._compute_mask_indices
sweep(f, lambda n: (((n, 50), 0.05, 10), {"attention_mask": torch.ones(n, 50, dtype=torch.long), "min_masks": 2}),
      [2, 3, 4], path, label="batch varies")
