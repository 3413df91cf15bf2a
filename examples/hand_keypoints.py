"""A hand-keypoint head: each frame shows 0, 1 or 2 hands (sometimes more).

Every size check below is a torch.compile hazard (see `zlint examples/`); the fixed version is
`hand_keypoints_fixed.py`.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class HandKeypointHead(nn.Module):
    def __init__(self, dim: int = 32, keypoints: int = 21) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, keypoints * 2)
        self.keypoints = keypoints

    def forward(self, hand_features: Tensor, boxes: Tensor) -> Tensor:
        # hand_features: (num_hands, dim); boxes: (num_hands, 4)
        num_hands, dim = hand_features.shape
        if num_hands == 0:  # no hands in this frame
            return hand_features.new_zeros(0, self.keypoints, 2)
        single = num_hands == 1  # a bool from a size, branched on below
        if single:
            hand_features = hand_features.expand(1, dim)
        if boxes.size(0) != num_hands:  # two sizes compared: a guard on their relation
            boxes = boxes[:num_hands]
        offsets = self.fc(hand_features).view(num_hands, self.keypoints, 2)
        centers = (boxes[:, None, :2] + boxes[:, None, 2:]) / 2
        return centers + offsets


def attention_pool(q: Tensor, k: Tensor, v: Tensor) -> Tensor:
    # q, k, v: (batch, heads, hands, head_dim)
    is_causal = q.shape[2] > 1 and k.shape[2] > 1  # a size bool passed on to SDPA
    return F.scaled_dot_product_attention(q, k, v, is_causal=is_causal)
