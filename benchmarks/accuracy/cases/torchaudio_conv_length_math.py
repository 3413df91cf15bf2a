"""Source: pytorch/audio, src/torchaudio/models/wav2vec2/components.py (ConvLayerBlock.forward,
FeatureExtractor.forward).

Rewritten: a 1-D conv feature extractor that also updates per-utterance lengths with tensor
arithmetic (floor division, clamp at zero); the input rank is validated with ndim.
"""

import torch
import torch.nn as nn


class ConvLayerBlock(nn.Module):
    def __init__(self, cin: int, cout: int, kernel_size: int, stride: int) -> None:
        super().__init__()
        self.kernel_size, self.stride = kernel_size, stride
        self.conv = nn.Conv1d(cin, cout, kernel_size, stride)

    def forward(self, x, length=None):
        x = nn.functional.gelu(self.conv(x))
        if length is not None:
            length = torch.div(length - self.kernel_size, self.stride, rounding_mode="floor") + 1
            length = torch.max(torch.zeros_like(length), length)
        return x, length


class FeatureExtractor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([ConvLayerBlock(1, 4, 3, 2), ConvLayerBlock(4, 4, 2, 1)])

    def forward(self, x, length):
        if x.ndim != 2:
            raise ValueError(f"expected (batch, frames), got {list(x.shape)}")
        x = x.unsqueeze(1)
        for block in self.blocks:
            x, length = block(x, length)
        return x.transpose(1, 2), length


CASE = dict(
    entry=lambda: FeatureExtractor(),
    make_inputs=lambda n: (torch.randn(2, 4 * n + 8), torch.tensor([4 * n + 8, 4 * n])),
    dims=[(0, 1)],
)
