"""Source: facebookresearch/detectron2, detectron2/structures/boxes.py (Boxes.__init__, area,
clip) as used by the ROI heads' forward.

Rewritten: a box container built inside the head's forward; an empty tensor is reshaped to
(0, 4) when it has no elements, the shape is validated by rank and last dim, and boxes are
clipped to the image.
"""

import torch
import torch.nn as nn


class Boxes:
    def __init__(self, tensor):
        if tensor.numel() == 0:
            tensor = tensor.reshape((-1, 4)).to(dtype=torch.float32)
        assert tensor.dim() == 2 and tensor.size(-1) == 4, tensor.size()
        self.tensor = tensor

    def area(self):
        box = self.tensor
        return (box[:, 2] - box[:, 0]) * (box[:, 3] - box[:, 1])

    def clip(self, box_size):
        h, w = box_size
        x1 = self.tensor[:, 0].clamp(min=0, max=w)
        y1 = self.tensor[:, 1].clamp(min=0, max=h)
        x2 = self.tensor[:, 2].clamp(min=0, max=w)
        y2 = self.tensor[:, 3].clamp(min=0, max=h)
        self.tensor = torch.stack((x1, y1, x2, y2), dim=-1)


class BoxHead(nn.Module):
    def forward(self, proposals):
        boxes = Boxes(proposals)
        boxes.clip((32, 32))
        return boxes.tensor, boxes.area()


CASE = dict(
    entry=lambda: BoxHead(),
    make_inputs=lambda n: (torch.rand(n, 4) * 40,),
)
