"""Source: facebookresearch/segment-anything, segment_anything/modeling/image_encoder.py
(get_rel_pos).

Rewritten: relative position embeddings are interpolated when the table's length differs from
what the query/key sizes need (2 * max(q, k) - 1), then gathered by relative coordinates.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_rel_pos(q_size: int, k_size: int, rel_pos):
    max_rel_dist = int(2 * max(q_size, k_size) - 1)
    if rel_pos.shape[0] != max_rel_dist:
        resized = F.interpolate(rel_pos.reshape(1, rel_pos.shape[0], -1).permute(0, 2, 1), size=max_rel_dist, mode="linear")
        resized = resized.reshape(-1, max_rel_dist).permute(1, 0)
    else:
        resized = rel_pos
    q_coords = torch.arange(q_size)[:, None] * max(k_size / q_size, 1.0)
    k_coords = torch.arange(k_size)[None, :] * max(q_size / k_size, 1.0)
    relative = (q_coords - k_coords) + (k_size - 1) * max(q_size / k_size, 1.0)
    return resized[relative.long()]


class RelPosAttention(nn.Module):
    def __init__(self, input_size: int = 4, head_dim: int = 4) -> None:
        super().__init__()
        self.rel_pos_h = nn.Parameter(torch.randn(2 * input_size - 1, head_dim))

    def forward(self, q):
        B, H, C = q.shape
        Rh = get_rel_pos(H, H, self.rel_pos_h)
        return torch.einsum("bhc,hkc->bhk", q, Rh)


CASE = dict(
    entry=lambda: RelPosAttention(),
    make_inputs=lambda n: (torch.randn(2, n, 4),),
    dims=[(0, 1)],
)
