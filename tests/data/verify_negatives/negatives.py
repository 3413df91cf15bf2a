"""Hard negatives for `zlint --verify`: code that reads sizes but costs nothing under
torch.compile (no extra graph, break or error at any size). Verified with the examples in
zlint_examples.py next to this file; `zlint --verify` must report nothing and exit 0."""

import torch
import torch.nn.functional as F


def rank_check(x):
    if x.dim() == 3:  # the rank is static
        x = x.flatten(1)
    return x * 2


def ndim_and_len_shape(x):
    if x.ndim > 1 and len(x.shape) == 2:
        return x.sum(-1)
    return x


def view_with_sizes(x):
    b, c = x.shape
    return x.view(b, c // 2, 2).sum(-1)


def static_dim_branch(x):
    if x.shape[1] == 8:  # dim 1 never varies
        return x + 1
    return x - 1


def checked_size(x, y):
    torch._check(x.size(0) == y.size(0))
    return x + y


def plain_int_branch(x, k: int = 3):
    if k > 2:  # a plain int, not a size
        return x * k
    return x


def none_check(x, mask=None):
    if mask is None:
        return x.relu()
    return x.relu() * mask


def matmul_on_batch(x, w):
    return x @ w


def bmm_on_batch(a, b):
    return torch.bmm(a, b)


def group_norm_on_batch(x):
    return F.group_norm(x, 2)


def transpose_on_batch(x):
    return x.t().contiguous().t()


def reshape_minus_one(x):
    return x.reshape(-1, 4).mean(0)


def size_into_new_tensor(x):
    return x + torch.zeros(x.size(0), x.size(1))


def parameter_shape_branch(x, weight):
    if weight.shape[0] == 4:  # a fixed-size weight
        return x @ weight.t()
    return x


def softmax_over_batch(x):
    return torch.softmax(x, dim=0) * x.shape[1]
