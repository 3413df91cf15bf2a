"""Source: ultralytics/ultralytics, ultralytics/utils/ops.py (non_max_suppression, the
per-image candidate filter before torchvision NMS).

Rewritten: candidates over the confidence threshold are masked per image in a loop over the
batch; an image without candidates is skipped; the best class is taken with max(1).
"""

import torch
import torch.nn as nn


class CandidateFilter(nn.Module):
    def __init__(self, conf_thres: float = 0.25, nc: int = 3) -> None:
        super().__init__()
        self.conf_thres = conf_thres
        self.nc = nc

    def forward(self, prediction):
        mi = 4 + self.nc
        xc = prediction[:, 4:mi].amax(1) > self.conf_thres
        prediction = prediction.transpose(-1, -2)
        output = [torch.zeros((0, 6))] * prediction.shape[0]
        for xi, x in enumerate(prediction):
            x = x[xc[xi]]
            if not x.shape[0]:
                continue
            box, cls = x.split((4, self.nc), 1)
            conf, j = cls.max(1, keepdim=True)
            output[xi] = torch.cat((box, conf, j.float()), 1)
        return output


CASE = dict(
    entry=lambda: CandidateFilter(),
    make_inputs=lambda n: (torch.rand(n, 7, 6),),
    dims=[(0, 0)],
)
