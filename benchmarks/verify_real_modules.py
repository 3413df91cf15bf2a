"""How many real torchvision/timm functions and modules `--verify` can run without a registered example.

Usage: python benchmarks/verify_real_modules.py [--modes default,...] [--backend eager]
Run it with an interpreter that has torch, torchvision and timm installed (see RESULTS.md for the
venv); zlint comes from this checkout (PYTHONPATH). Each target goes through the job `--verify`
runs for a flagged function (`zlint.verify.sandbox.worker.run_job`): the module imported from the installed
package, a method's object built with no arguments (or from `__init__` defaults), inputs
synthesized from how the function uses its parameters. A target *verifies* when that job reports
no UNVERIFIABLE reason; the reason is printed otherwise. The inputs are the question here, so the
default is the cheapest sweep that still runs each target compiled (eager backend, default mode).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

#: (module, qualified name): 15 from torchvision, 15 from timm; layers and models people compile
TARGETS = [
    ("torchvision.models.resnet", "BasicBlock.forward"),
    ("torchvision.models.resnet", "Bottleneck.forward"),
    ("torchvision.models.mobilenetv2", "InvertedResidual.forward"),
    ("torchvision.models.shufflenetv2", "channel_shuffle"),
    ("torchvision.models.shufflenetv2", "InvertedResidual.forward"),
    ("torchvision.models.squeezenet", "Fire.forward"),
    ("torchvision.models.vision_transformer", "MLPBlock.forward"),
    ("torchvision.models.vision_transformer", "EncoderBlock.forward"),
    ("torchvision.models.swin_transformer", "PatchMerging.forward"),
    ("torchvision.models.convnext", "CNBlock.forward"),
    ("torchvision.ops.misc", "FrozenBatchNorm2d.forward"),
    ("torchvision.ops.misc", "SqueezeExcitation.forward"),
    ("torchvision.ops.boxes", "box_area"),
    ("torchvision.ops.boxes", "box_iou"),
    ("torchvision.ops.boxes", "masks_to_boxes"),
    ("timm.layers.mlp", "Mlp.forward"),
    ("timm.layers.mlp", "GluMlp.forward"),
    ("timm.layers.drop", "drop_path"),
    ("timm.layers.drop", "DropPath.forward"),
    ("timm.layers.patch_embed", "PatchEmbed.forward"),
    ("timm.layers.squeeze_excite", "SEModule.forward"),
    ("timm.layers.norm", "LayerNorm2d.forward"),
    ("timm.layers.layer_scale", "LayerScale.forward"),
    ("timm.layers.attention", "Attention.forward"),
    ("timm.layers.grn", "GlobalResponseNorm.forward"),
    ("timm.models.vision_transformer", "Block.forward"),
    ("timm.models.swin_transformer", "window_partition"),
    ("timm.models.swin_transformer", "window_reverse"),
    ("timm.models.convnext", "ConvNeXtBlock.forward"),
    ("timm.models.resnet", "BasicBlock.forward"),
]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="default")
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--sizes", default="2,3,5,1,0,8")
    args = parser.parse_args()
    from zlint.verify.sandbox.worker import run_job

    verified, probers, loaded = 0, {}, set()
    for module, qualname in TARGETS:
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.origin:
            print(f"missing   {module}:{qualname}: module not installed")
            continue
        job = {
            "path": str(Path(spec.origin).resolve()), "qualname": qualname, "focus": [],
            "sizes": [int(s) for s in args.sizes.split(",")], "modes": args.modes.split(","),
            "backend": args.backend, "device": "cpu",
        }
        started = time.perf_counter()
        report = run_job(job, probers, loaded)
        seconds = time.perf_counter() - started
        reason = report.get("unverifiable")
        verified += not reason
        inputs = f"{report.get('inputs')}: {report.get('input_detail')}"
        print(f"{'UNVERIF.' if reason else 'verified'}  {seconds:5.1f}s  {module}:{qualname}  "
              f"{reason or inputs}")
    print(f"verified without registration: {verified}/{len(TARGETS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
