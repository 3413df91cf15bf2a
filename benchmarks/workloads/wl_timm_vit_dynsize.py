"""timm ViT-tiny-like classifier with dynamic image size: the side varies (patch 8), batch 2.
Written after the session's changes, to accept them on a model zlint was not tuned on."""
import timm
import torch

VENV = "tv"  # timm imports torchvision
NAME = "timm_vit_dynsize"
SIZES = [2, 3, 5, 1, 4]
DYNAMIC = {0: [2, 3]}


def build():
    return timm.create_model(
        "vit_tiny_patch16_224", pretrained=False, num_classes=10, img_size=32, patch_size=8,
        depth=2, embed_dim=48, num_heads=3, dynamic_img_size=True,
    ).eval()


def inputs(n):
    return (torch.randn(2, 3, 8 * n, 8 * n),)
