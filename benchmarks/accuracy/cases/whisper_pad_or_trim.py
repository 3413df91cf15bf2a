"""Source: openai/whisper, whisper/audio.py (pad_or_trim) as called on the mel features
before the encoder.

Rewritten: features longer than the model's window are trimmed with index_select, shorter ones
are zero-padded up to it; both tests compare the varying frame count with a fixed length.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def pad_or_trim(array, length: int = 6, axis: int = -1):
    if array.shape[axis] > length:
        array = array.index_select(dim=axis, index=torch.arange(length, device=array.device))
    if array.shape[axis] < length:
        pad_widths = [(0, 0)] * array.ndim
        pad_widths[axis] = (0, length - array.shape[axis])
        array = F.pad(array, [pad for sizes in pad_widths[::-1] for pad in sizes])
    return array


class MelFrontEnd(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Conv1d(4, 4, 1)

    def forward(self, mel):
        return self.proj(pad_or_trim(mel, 6))


CASE = dict(
    entry=lambda: MelFrontEnd(),
    make_inputs=lambda n: (torch.randn(1, 4, n),),
    dims=[(0, 2)],
)
