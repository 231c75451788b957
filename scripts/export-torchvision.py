#!/usr/bin/python3
#===- export-torchvision.py - torchvision models to ONNX with references ---===#
#
# Exports a torchvision classification model (random weights, `weights=None`)
# to ONNX and runs it in PyTorch on a seeded input, for mem-opt-import's
# numerical tests. Writes to --out:
#   model.onnx  the model (opset 13; BatchNormalization kept, so that the
#               importer's folding is exercised)
#   input.bin   the input, NCHW, raw little-endian float32
#   output.bin  PyTorch's output, raw little-endian float32
#   shape.txt   input shape and output shape, one line each
# Everything is seeded: the same arguments give the same files.
#
# Random weights alone leave BatchNorm at mean 0 / variance 1; the statistics
# and affine parameters are randomized too so that folding is really tested.
#
# Run with Debian's Python (`/usr/bin/python3`), which sees python3-torch,
# python3-torchvision and python3-onnx.
#
#===------------------------------------------------------------------------===#
import argparse
import os
import sys

import torch
import torchvision

# Smallest resolution each family accepts (the default for the rest is 64).
MIN_RESOLUTION = {"inception_v3": 75}


def build(name, width):
    """Builds torchvision model `name` with random weights."""
    if name == "densenet_tiny":
        # DenseNet-121's structure (BatchNorm before the convs, transitions
        # with average pooling, dense concatenations) at a width that keeps
        # CI fast.
        return torchvision.models.densenet.DenseNet(
            growth_rate=8, block_config=(2, 2, 2), num_init_features=16,
            bn_size=2, num_classes=10)
    kwargs = {}
    if name in ("googlenet", "inception_v3"):
        kwargs = dict(aux_logits=False, init_weights=True)
    if width is not None:
        if name.startswith("mobilenet_v2"):
            kwargs["width_mult"] = width
    return getattr(torchvision.models, name)(weights=None, **kwargs)


def randomize_batchnorm(model, generator):
    """Gives every BatchNorm non-trivial statistics and affine parameters."""
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            c = module.num_features
            with torch.no_grad():
                module.weight.copy_(torch.rand(c, generator=generator) + 0.5)
                module.bias.copy_(torch.rand(c, generator=generator) * 0.2 - 0.1)
                module.running_mean.copy_(
                    torch.rand(c, generator=generator) * 0.2 - 0.1)
                module.running_var.copy_(
                    torch.rand(c, generator=generator) + 0.5)


def main():
    parser = argparse.ArgumentParser(description="Export a torchvision model to ONNX with a PyTorch reference")
    parser.add_argument("--model", required=True,
                        help="torchvision model name, e.g. resnet18, or "
                        "densenet_tiny (a narrow DenseNet)")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--resolution", type=int, default=64)
    parser.add_argument("--width", type=float, default=None,
                        help="width multiplier (MobileNetV2 only)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    generator = torch.Generator().manual_seed(args.seed)
    model = build(args.model, args.width)
    randomize_batchnorm(model, generator)
    model.eval()
    resolution = max(args.resolution, MIN_RESOLUTION.get(args.model, 1))
    x = torch.randn(1, 3, resolution, resolution, generator=generator)
    with torch.no_grad():
        y = model(x)
    os.makedirs(args.out, exist_ok=True)
    torch.onnx.export(model, x, os.path.join(args.out, "model.onnx"),
                      opset_version=13,
                      training=torch.onnx.TrainingMode.PRESERVE,
                      input_names=["input"], output_names=["logits"])
    x.numpy().astype("<f4").tofile(os.path.join(args.out, "input.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(args.out, "output.bin"))
    with open(os.path.join(args.out, "shape.txt"), "w") as f:
        f.write("x".join(map(str, x.shape)) + "\n")
        f.write("x".join(map(str, y.shape)) + "\n")


if __name__ == "__main__":
    sys.exit(main())
