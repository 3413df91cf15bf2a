"""A detection head and a post-processing step, written for zlint's fuzz tests."""

import torch
from torch import nn


class KeypointHead(nn.Module):
    def __init__(self, channels, num_keypoints=21):
        super().__init__()
        self.conv = nn.Conv2d(channels, num_keypoints, 1)
        self.num_keypoints = num_keypoints

    def forward(self, features, boxes):
        heatmaps = self.conv(features)
        n = boxes.shape[0]
        if n == 0:
            return heatmaps.new_zeros((0, self.num_keypoints, 2))
        if not n:
            raise ValueError("no boxes")
        flat = heatmaps.flatten(2)
        idx = flat.argmax(-1)
        keep = boxes[:, 2] > boxes[:, 0]
        boxes = boxes[keep]
        scores = flat.max(-1).values
        if scores.max().item() < 0.5:
            return None
        points = torch.stack((idx % heatmaps.shape[-1], idx // heatmaps.shape[-1]), -1)
        return [p for p in points] + list(points.unbind(0))


def postprocess(logits, threshold=0.3, *, top_k: int = 100):
    probs = logits.sigmoid()
    hits = (probs > threshold).nonzero()
    labels, counts = torch.unique(hits[:, 1], return_counts=True)
    total = int(counts.sum())
    table = {probs.size(1): total}
    while total > top_k:
        total //= 2
    out = probs.repeat_interleave(counts.clamp(min=1), dim=0)
    match out.ndim:
        case 2:
            return out.squeeze(), table
        case _:
            return out, labels.tolist()


async def serve(model, batches):
    async for batch in batches:
        if (size := batch.size(0)) in (0, 1):
            continue
        yield model(batch)[:size]
