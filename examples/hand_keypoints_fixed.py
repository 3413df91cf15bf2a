"""The hand-keypoint head without size branches: one graph for 0, 1, 2 or more hands."""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class HandKeypointHead(nn.Module):
    def __init__(self, dim: int = 32, keypoints: int = 21) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, keypoints * 2)
        self.keypoints = keypoints

    def forward(self, hand_features: Tensor, boxes: Tensor) -> Tensor:
        num_hands = hand_features.shape[0]
        # the caller guarantees one box per hand: state it instead of branching on it
        torch._check(boxes.size(0) == num_hands)
        # a (0, dim) input gives a (0, keypoints, 2) output: no empty-frame branch needed
        offsets = self.fc(hand_features).view(num_hands, self.keypoints, 2)
        centers = (boxes[:, None, :2] + boxes[:, None, 2:]) / 2
        return centers + offsets


def attention_pool(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    # hands attend to each other without a mask: no size-dependent is_causal
    return F.scaled_dot_product_attention(q, k, v)
