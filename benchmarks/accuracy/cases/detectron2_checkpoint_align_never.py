"""Source: facebookresearch/detectron2, detectron2/checkpoint/c2_model_loading.py
(align_and_update_state_dicts) and detectron2/checkpoint/detection_checkpoint.py
(_load_model, the shape-mismatch handling).

Rewritten: loading a checkpoint whose tensors may not match the model: keys are matched by
suffix, mismatched shapes are skipped with a message, and a head whose class count changed is
resized. Runs once at load time, never compiled; forward is a linear classifier.
"""

import torch
import torch.nn as nn


def align_state_dicts(model_sd: dict, ckpt_sd: dict) -> dict:
    out = {}
    for key, value in model_sd.items():
        matches = [k for k in ckpt_sd if key.endswith(k) or k.endswith(key)]
        if len(matches) == 0:
            continue
        ckpt_value = ckpt_sd[max(matches, key=len)]
        if value.shape != ckpt_value.shape:
            if value.dim() == 2 and value.shape[1] == ckpt_value.shape[1] and ckpt_value.shape[0] > value.shape[0]:
                ckpt_value = ckpt_value[: value.shape[0]]
            else:
                print(f"skip {key}: {tuple(ckpt_value.shape)} vs {tuple(value.shape)}")
                continue
        out[key] = ckpt_value
    return out


class Classifier(nn.Module):
    def __init__(self, dim: int = 4, classes: int = 3) -> None:
        super().__init__()
        self.cls_score = nn.Linear(dim, classes)

    def load_aligned(self, ckpt_sd: dict) -> None:
        self.load_state_dict(align_state_dicts(self.state_dict(), ckpt_sd), strict=False)

    def forward(self, x):
        return self.cls_score(x).softmax(-1)


CASE = dict(
    entry=lambda: Classifier(),
    make_inputs=lambda n: (torch.randn(n, 4),),
)
