"""Source: facebookresearch/detectron2, detectron2/structures/image_list.py
(ImageList.from_tensors) as called by GeneralizedRCNN.preprocess_image.

Rewritten: images are padded to a common size rounded up to the stride; the maximal size is a
tensor built from the images' shapes, and the single-image path pads by the difference.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def from_tensors(tensors, size_divisibility: int = 4, pad_value: float = 0.0):
    image_sizes = [(im.shape[-2], im.shape[-1]) for im in tensors]
    image_sizes_tensor = [torch.as_tensor(x) for x in image_sizes]
    max_size = torch.stack(image_sizes_tensor).max(0).values
    stride = size_divisibility
    max_size = (max_size + (stride - 1)).div(stride, rounding_mode="floor") * stride
    if len(tensors) == 1:
        image_size = image_sizes[0]
        padding_size = [0, max_size[-1] - image_size[1], 0, max_size[-2] - image_size[0]]
        return F.pad(tensors[0], padding_size, value=pad_value).unsqueeze_(0)
    return torch.stack(tensors)


class Preprocess(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("pixel_mean", torch.tensor([0.5, 0.5, 0.5]).view(-1, 1, 1))

    def forward(self, image):
        return from_tensors([image - self.pixel_mean])


CASE = dict(
    entry=lambda: Preprocess(),
    make_inputs=lambda n: (torch.randn(3, n + 2, 6),),
    dims=[(0, 1)],
)
