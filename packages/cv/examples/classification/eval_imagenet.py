#!/usr/bin/env python
"""Top-1 / top-5 error of a kusari-cv classifier on an ImageNet-style list.

    python eval_imagenet.py val.txt --root /path/to/ILSVRC2012 \\
        --model resnet50 --pretrained-model imagenet --crop center

``--pretrained-model`` is a preset name (``imagenet``, downloaded once) or an
``.npz`` file such as a snapshot of ``train_imagenet.py``. Each image's
shorter side is scaled to ``--scale-size``; then either the center crop or
ten crops (corners, center and their mirrors, averaged) of ``--crop-size``
are classified.
"""

from __future__ import annotations

import argparse

import numpy as np

import kusari
import kusari_cv.links
from kusari_cv.utils import ProgressHook, apply_to_iterator

MODELS = {
    "resnet50": kusari_cv.links.ResNet50,
    "resnet101": kusari_cv.links.ResNet101,
    "resnet152": kusari_cv.links.ResNet152,
    "se-resnet50": kusari_cv.links.SEResNet50,
    "se-resnet101": kusari_cv.links.SEResNet101,
    "se-resnet152": kusari_cv.links.SEResNet152,
    "se-resnext50": kusari_cv.links.SEResNeXt50,
    "se-resnext101": kusari_cv.links.SEResNeXt101,
    "vgg16": kusari_cv.links.VGG16,
}


def _rgb(in_data):
    """Three channels whatever the file had (grayscale, RGBA)."""
    img, label = in_data
    if img.shape[0] == 1:
        img = np.repeat(img, 3, axis=0)
    return img[:3], label


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("val", help="list file of images and labels")
    parser.add_argument("--root", default=".", help="directory the paths start at")
    parser.add_argument("--model", choices=sorted(MODELS), default="resnet50")
    parser.add_argument("--pretrained-model", default="imagenet")
    parser.add_argument("--n-class", type=int, default=None)
    parser.add_argument("--arch", choices=("fb", "he"), default="fb")
    parser.add_argument("--crop", choices=("center", "10"), default="center")
    parser.add_argument("--crop-size", type=int, default=224)
    parser.add_argument("--scale-size", type=int, default=256)
    parser.add_argument("--batchsize", "-b", type=int, default=32)
    parser.add_argument("--device", "-d", default="@numpy")
    args = parser.parse_args(argv)

    device = kusari.get_device(
        int(args.device) if args.device.lstrip("-").isdigit() else args.device
    )
    kwargs = {"n_class": args.n_class, "pretrained_model": args.pretrained_model}
    if args.model.startswith("resnet"):
        kwargs["arch"] = args.arch
    extractor = MODELS[args.model](**kwargs)
    model = kusari_cv.links.FeaturePredictor(
        extractor, args.crop_size, args.scale_size, crop=args.crop
    )
    model.to_device(device)
    device.use()

    dataset = kusari.datasets.TransformDataset(
        kusari.datasets.LabeledImageDataset(args.val, args.root), _rgb
    )
    iterator = kusari.iterators.SerialIterator(
        dataset, args.batchsize, repeat=False, shuffle=False
    )
    _, (probs,), (labels,) = apply_to_iterator(
        model.predict, iterator, hook=ProgressHook(len(dataset))
    )
    probs = np.asarray(list(probs))
    labels = np.asarray(list(labels))
    top5 = np.argsort(-probs, axis=1)[:, :5]
    result = {
        "top1_error": float(np.mean(top5[:, 0] != labels)),
        "top5_error": float(np.mean(np.all(top5 != labels[:, None], axis=1))),
    }
    print()
    print(f"top-1 error: {result['top1_error']:.4f}")
    print(f"top-5 error: {result['top5_error']:.4f}")
    return result


if __name__ == "__main__":
    main()
