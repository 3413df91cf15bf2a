"""timm/layers/drop.py calculate_drop_path_rates, compiled as called by model constructors:
int depths (line 219: .item() on a linspace, iterated), list depths (226 stagewise .tolist(),
230 .item())."""
import torch
from timm.layers import drop
from _common import sweep

path = drop.__file__
f = drop.calculate_drop_path_rates
sweep(f, lambda n: ((0.1, n), {}), [12, 24, 12, 36], path, label="int depths (line 219)")
sweep(f, lambda n: ((0.1, [n, n + 1]), {"stagewise": True}), [2, 3, 4], path, label="list, stagewise (226)")
sweep(f, lambda n: ((0.1, [n, n + 1]), {}), [2, 3, 4], path, label="list, per block (230)")
