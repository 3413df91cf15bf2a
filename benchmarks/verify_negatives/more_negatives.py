"""More hard negatives (benchmark set): size arithmetic that traces symbolically on torch 2.13-2.15
and costs no graph, break or error. `zlint --verify benchmarks/verify_negatives` must stay quiet.
Not here: ``x.sum(0) / max(n, 1)``, which backed_size_oblivious computes as nan at size 0 (a wrong
result --verify reports as ZL804)."""

import math

import torch
import torch.nn.functional as F


def min_with_constant(x):
    k = min(x.size(0), 4)
    return x[:k].sum(0)


def ceil_half(x):
    half = math.ceil(x.size(0) / 2)
    return x.new_zeros(half, x.size(1))


def int_of_size(x):
    return x * int(x.size(0))


def pad_to_multiple(x):
    n = x.size(0)
    return F.pad(x, (0, 0, 0, (4 - n % 4) % 4))


def concat_self(x):
    return torch.cat([x, x], dim=0)


def first_half(x):
    return x[: x.size(0) // 2]


def expand_rows(x):
    return x[:, :1].expand(x.size(0), 4)


def arange_over_batch(x):
    return x * torch.arange(x.size(0)).unsqueeze(1)


def layer_norm_rows(x):
    return F.layer_norm(x, (x.size(-1),))


def linear_on_batch(x, w):
    return F.linear(x, w)


def flatten_leading(x):
    return x.flatten(0, 1)
