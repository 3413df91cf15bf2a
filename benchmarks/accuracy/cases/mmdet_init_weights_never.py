"""Source: open-mmlab/mmdetection, mmdet/models/dense_heads/retina_head.py and
mmengine/model/weight_init.py (bias_init_with_prob, normal_init) as called by init_weights.

Rewritten: the classification bias is set from a prior probability and conv weights are
initialised by module type and output channels; forward is the per-level head.
"""

import math

import torch
import torch.nn as nn


def bias_init_with_prob(prior_prob: float) -> float:
    return float(-math.log((1 - prior_prob) / prior_prob))


class RetinaLikeHead(nn.Module):
    def __init__(self, channels: int = 4, num_anchors: int = 2, num_classes: int = 3) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.cls_conv = nn.Conv2d(channels, num_anchors * num_classes, 3, padding=1)
        self.reg_conv = nn.Conv2d(channels, num_anchors * 4, 3, padding=1)

    def init_weights(self) -> None:
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.normal_(m.weight, std=0.01)
                if m.weight.shape[0] % self.num_classes == 0 and m.bias is not None:
                    nn.init.constant_(m.bias, bias_init_with_prob(0.01))

    def forward(self, feat):
        cls = self.cls_conv(feat)
        reg = self.reg_conv(feat)
        n = cls.shape[0]
        return cls.view(n, -1, self.num_classes), reg.view(n, -1, 4)


CASE = dict(
    entry=lambda: RetinaLikeHead(),
    make_inputs=lambda n: (torch.randn(n, 4, 5, 5),),
)
