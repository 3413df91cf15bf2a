"""The serving loop of `serving_loop.py`, fixed: the varying dims are marked at the call site, the
compiled code never specializes them, there is no per-size static copy, the model is branch-free
(scores compete by softmax at every size, a lone box gets 1.0) and the export example has two
boxes with `min=2` (the caller handles empty pages). `zlint --verify` runs `serve` and
`export_ranker` here too and finds nothing."""

import torch
from torch import Tensor, nn
from torch.export import Dim


class BoxRanker(nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, boxes: Tensor) -> Tensor:
        return self.score(boxes).squeeze(-1).softmax(0)


@torch.compile
def top_boxes(scores: Tensor) -> Tensor:
    return scores.argsort(descending=True)


def serve(requests, ranker: BoxRanker):
    model = torch.compile(ranker)
    for boxes in requests:
        torch._dynamo.maybe_mark_dynamic(boxes, 0)
        scores = model(boxes)
        torch._dynamo.mark_dynamic(scores, 0)
        yield top_boxes(scores)


def export_ranker(ranker: BoxRanker):
    boxes = Dim("boxes", min=2)
    example = torch.randn(2, 32)
    return torch.export.export(ranker, (example,), dynamic_shapes={"boxes": {0: boxes}})
