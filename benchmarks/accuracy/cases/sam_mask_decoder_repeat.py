"""Source: facebookresearch/segment-anything, segment_anything/modeling/mask_decoder.py
(MaskDecoder.forward, predict_masks).

Rewritten: the image embedding is repeated once per prompt with repeat_interleave by the
prompt count (an int from the tokens' shape), a multimask flag picks a static slice of the
mask outputs.
"""

import torch
import torch.nn as nn


class TinyMaskDecoder(nn.Module):
    def __init__(self, dim: int = 4, num_masks: int = 4) -> None:
        super().__init__()
        self.mask_tokens = nn.Embedding(num_masks, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, image_embeddings, sparse_prompt_embeddings, multimask_output: bool = True):
        output_tokens = self.mask_tokens.weight.unsqueeze(0).expand(sparse_prompt_embeddings.size(0), -1, -1)
        tokens = torch.cat((output_tokens, sparse_prompt_embeddings), dim=1)
        src = torch.repeat_interleave(image_embeddings, tokens.shape[0], dim=0)
        b, c, h, w = src.shape
        hyper = self.proj(tokens[:, : self.mask_tokens.num_embeddings])
        masks = (hyper @ src.view(b, c, h * w)).view(b, -1, h, w)
        if multimask_output:
            mask_slice = slice(1, None)
        else:
            mask_slice = slice(0, 1)
        return masks[:, mask_slice, :, :]


CASE = dict(
    entry=lambda: TinyMaskDecoder(),
    make_inputs=lambda n: (torch.randn(1, 4, 4, 4), torch.randn(n, 2, 4)),
    dims=[(1, 0)],
)
