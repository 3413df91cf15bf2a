"""Compile setup code, written for zlint's fuzz tests."""

import functools

import torch
import torch._dynamo
import torch as T


@functools.lru_cache(maxsize=None)
def build(model, dynamic=None):
    torch._dynamo.config.cache_size_limit = 256
    compiled = T.compile(model, mode="max-autotune", options={"triton.cudagraphs": True}, dynamic=True)
    return compiled


@torch.compile(backend="inductor", fullgraph=True)
def step(x, y):
    torch._dynamo.mark_dynamic(x, 0)
    b = x.size(0)
    return x.view(b, -1) + y.sum() if b != 1 else x


def run(model, loader):
    fn = torch.compile(model)
    for i, (x, y) in enumerate(loader):
        torch._dynamo.mark_dynamic(x, 0, min=1, max=64)
        loss = fn(x).sub(y).pow(2).mean()
        print(f"step {i}: batch {x.shape[0]} loss {loss.item():.3f}")
    ep = torch.export.export(model, (torch.randn(1, 3),), dynamic_shapes={"x": {0: torch.export.Dim("b", min=0)}})
    return ep
