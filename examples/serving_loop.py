"""A serving loop: a compiled ranking model scores each request's candidate boxes.

The number of candidates changes with every request (often 0, 1 or 2 for a quiet page), but
nothing tells torch.compile so: the second request recompiles, the rare empty or single-box
request recompiles again in production, a "static is faster" copy compiles once per size until
the recompile limit (then silently runs eagerly), and a constraint added for "speed" fails to
compile. The exported ranker is wrong for a single box: export traced it assuming the size is
never 0 or 1, so the lone-box branch is missing from the exported program. `zlint
examples/serving_loop.py` flags each one, `zlint --verify` confirms each on real torch.compile by
running `serve` and the export functions (inputs in `zlint_examples.py`); `serving_loop_fixed.py`
is the fixed version.
"""

import torch
from torch import Tensor, nn
from torch.export import Dim


class BoxRanker(nn.Module):
    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.score = nn.Linear(dim, 1)

    def forward(self, boxes: Tensor) -> Tensor:
        scores = self.score(boxes).squeeze(-1)
        if boxes.size(0) == 1:  # a lone box is scored on its own; several compete
            return scores.sigmoid()
        return scores.softmax(0)


class MarkingRanker(BoxRanker):
    def forward(self, boxes: Tensor) -> Tensor:
        torch._dynamo.mark_dynamic(boxes, 0)  # too late: dynamo cannot trace this call
        return super().forward(boxes)


@torch.compile
def top_boxes(scores: Tensor) -> Tensor:
    names = [f"box{i}" for i in range(scores.size(0))]  # one graph per number of boxes
    return scores.argsort(descending=True)[: len(names)]


def serve(requests, ranker: BoxRanker):
    model = torch.compile(ranker)
    warm = torch.compile(ranker, dynamic=False)  # "static is faster": until the recompile limit
    for boxes in requests:
        scores = model(boxes)  # recompiles at the first new number of boxes
        torch._dynamo.mark_dynamic(scores, 0)  # ConstraintViolationError in top_boxes
        yield top_boxes(scores), warm(boxes)


def export_ranker(ranker: BoxRanker):
    boxes = Dim("boxes", min=1)  # export still assumes the size is never 0 or 1
    example = torch.randn(4, 32)
    return torch.export.export(ranker, (example,), dynamic_shapes={"boxes": {0: boxes}})


def export_one_box(ranker: BoxRanker):
    example = torch.randn(1, 32)  # a single box: export specializes the dim
    return torch.export.export(ranker, (example,), dynamic_shapes={"boxes": {0: Dim("boxes")}})
