"""Source: facebookresearch/segment-anything, segment_anything/modeling/prompt_encoder.py
(PromptEncoder._embed_points).

Rewritten: point prompts are shifted to pixel centres, optionally padded with one "not a point"
entry, embedded with random Fourier features, and the label values select which learned
embedding is added (masked assignment by label value).
"""

import torch
import torch.nn as nn


class PointEmbedder(nn.Module):
    def __init__(self, dim: int = 8) -> None:
        super().__init__()
        self.register_buffer("gaussian", torch.randn(2, dim // 2))
        self.not_a_point = nn.Embedding(1, dim)
        self.point_embeddings = nn.ModuleList(nn.Embedding(1, dim) for _ in range(2))

    def forward(self, points, labels, pad: bool = True):
        points = points + 0.5
        if pad:
            padding_point = torch.zeros((points.shape[0], 1, 2), device=points.device)
            padding_label = -torch.ones((labels.shape[0], 1), device=labels.device)
            points = torch.cat([points, padding_point], dim=1)
            labels = torch.cat([labels, padding_label], dim=1)
        coords = 2 * (points / 16.0) - 1
        coords = coords @ self.gaussian
        emb = torch.cat([torch.sin(coords), torch.cos(coords)], dim=-1)
        emb[labels == -1] = 0.0
        emb[labels == -1] += self.not_a_point.weight
        emb[labels == 0] += self.point_embeddings[0].weight
        emb[labels == 1] += self.point_embeddings[1].weight
        return emb


CASE = dict(
    entry=lambda: PointEmbedder(),
    make_inputs=lambda n: (torch.rand(2, n, 2) * 16, (torch.arange(2 * n) % 2).view(2, n).float()),
    dims=[(0, 1), (1, 1)],
)
