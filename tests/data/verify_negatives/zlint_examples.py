"""Inputs for the hard negatives in negatives.py: `n` is the size that varies."""

import torch

import negatives as neg
from zlint.verify import example

example(neg.rank_check, lambda n: (torch.randn(n, 4, 2),))
example(neg.ndim_and_len_shape, lambda n: (torch.randn(n, 4),))
example(neg.view_with_sizes, lambda n: (torch.randn(n, 8),))
example(neg.static_dim_branch, lambda n: (torch.randn(n, 8),))
example(neg.checked_size, lambda n: (torch.randn(n, 4), torch.randn(n, 4)))
example(neg.plain_int_branch, lambda n: (torch.randn(n, 4),))
example(neg.none_check, lambda n: (torch.randn(n, 4),))
example(neg.matmul_on_batch, lambda n: (torch.randn(n, 4), torch.randn(4, 3)))
example(neg.bmm_on_batch, lambda n: (torch.randn(n, 2, 4), torch.randn(n, 4, 3)))
example(neg.group_norm_on_batch, lambda n: (torch.randn(n, 4, 5),))
example(neg.transpose_on_batch, lambda n: (torch.randn(n, 4),))
example(neg.reshape_minus_one, lambda n: (torch.randn(n, 8),))
example(neg.size_into_new_tensor, lambda n: (torch.randn(n, 4),))
example(neg.parameter_shape_branch, lambda n: (torch.randn(n, 4), torch.randn(4, 4)))
example(neg.softmax_over_batch, lambda n: (torch.randn(n, 4),))
