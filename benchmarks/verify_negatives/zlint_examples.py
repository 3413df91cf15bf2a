"""Inputs for more_negatives.py: `n` is the size that varies."""

import more_negatives as neg
import torch

from zlint.verify import example

for fn in (neg.min_with_constant, neg.ceil_half, neg.int_of_size, neg.pad_to_multiple,
           neg.concat_self, neg.first_half, neg.expand_rows, neg.arange_over_batch, neg.layer_norm_rows):
    example(fn, lambda n: (torch.randn(n, 4),))
example(neg.linear_on_batch, lambda n: (torch.randn(n, 4), torch.randn(3, 4)))
example(neg.flatten_leading, lambda n: (torch.randn(n, 2, 4),))
