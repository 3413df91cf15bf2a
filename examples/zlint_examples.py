"""Inputs for `zlint --verify examples/`: how each example is called for size ``n``.

`zlint --verify` imports a file with this name from the linted directories (or the files listed
under ``[tool.zlint.verify] examples``) before compiling anything. ``make_inputs(n)`` returns the
call's arguments for size ``n``; ``factory`` builds the module whose method is verified. Functions
registered here are verified even when no static rule flags them (the fixed versions).
"""

import torch

import hand_keypoints
import hand_keypoints_fixed
import likes_pooler
import likes_pooler_fixed
import serving_loop
import serving_loop_fixed
import zl2_unrolling
import zl2_unrolling_fixed
import zl3_data_dependent
import zl3_data_dependent_fixed
from zlint.verify import example

for module in (likes_pooler, likes_pooler_fixed):
    # n likes of 16 features; pages: 3 pages of 16 features
    example(module.LikesPooler.forward, lambda n: (torch.randn(n, 16),), factory=lambda m=module: m.LikesPooler(16))
    example(module.score, lambda n: (torch.randn(3, 16), torch.randn(n, 16)))

for module in (hand_keypoints, hand_keypoints_fixed):
    # n hands of 32 features; the detector may return more boxes than hands
    example(
        module.HandKeypointHead.forward,
        lambda n, m=module: (torch.randn(n, 32), torch.randn(n + (m is hand_keypoints), 4)),
        factory=lambda m=module: m.HandKeypointHead(32),
    )
    # (batch 2, heads 4, n hands, head_dim 8)
    example(module.attention_pool, lambda n: tuple(torch.randn(2, 4, n, 8) for _ in range(3)))

for module in (zl2_unrolling, zl2_unrolling_fixed):
    # n boxes: 32 features and (x0, y0, x1, y1) each
    example(module.BoxHead.forward, lambda n: (torch.randn(n, 32),), factory=lambda m=module: m.BoxHead(32))
    for boxes_fn in (module.box_areas, module.per_box):
        example(boxes_fn, lambda n: (torch.rand(n, 4),))
    for feats_fn in (module.anchor_scale, module.box_tag):
        example(feats_fn, lambda n: (torch.randn(n, 32),))

# n likes of 16 features, their weights and the ids of the users behind them (5 users)
example(
    zl3_data_dependent.SparseLikesPooler.forward,
    lambda n: (torch.randn(n, 16), torch.rand(n) + 0.1, torch.randint(0, 5, (n,))),
    factory=lambda: zl3_data_dependent.SparseLikesPooler(16),
)
example(
    zl3_data_dependent_fixed.SparseLikesPooler.forward,
    lambda n: (torch.randn(n, 16), torch.rand(n) + 0.1, torch.randint(0, 5, (n,)), 5),
    factory=lambda: zl3_data_dependent_fixed.SparseLikesPooler(16),
)

for module in (serving_loop, serving_loop_fixed):
    # n candidate boxes of 32 features; top_boxes ranks their n scores
    example(module.BoxRanker.forward, lambda n: (torch.randn(n, 32),), factory=lambda m=module: m.BoxRanker(32))
    example(module.top_boxes, lambda n: (torch.randn(n),))
    # callers, run once over the whole sweep (sweep=True: make_inputs gets the list of sizes):
    # serve gets one request of n boxes per size; the export functions need only a model
    example(module.serve, lambda sizes, m=module: ([torch.randn(n, 32) for n in sizes], m.BoxRanker(32)), sweep=True)
    example(module.export_ranker, lambda sizes, m=module: (m.BoxRanker(32),), sweep=True)
example(
    serving_loop.MarkingRanker.forward, lambda n: (torch.randn(n, 32),), factory=lambda: serving_loop.MarkingRanker(32)
)
example(serving_loop.export_one_box, lambda sizes: (serving_loop.BoxRanker(32),), sweep=True)
