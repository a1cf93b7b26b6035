#!/usr/bin/env python
"""Train an ImageNet classifier (ResNet-50 by default) with kusari-cv.

The data are two list files in the format of ``LabeledImageDataset``: one
``<image path> <label>`` per line, paths relative to ``--root``::

    python train_imagenet.py train.txt val.txt --root /data/ILSVRC2012 \\
        --model resnet50 --batchsize 32 --device @cupy:0

Training crops a random region (8%-100% of the area, aspect ratio 3/4-4/3),
resizes it to ``--crop-size`` and flips it at random; validation scales the
shorter side to ``--scale-size`` and takes the center crop. Momentum SGD
(learning rate 0.1 per 256 images, weight decay 1e-4 except on batch
normalization) is divided by 10 at epochs 30, 60 and 80 of 90.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

import numpy as np

import kusari
import kusari.links as L
import kusari_cv.links
from kusari import training
from kusari.training import extensions
from kusari_cv import transforms

MODELS = {
    "resnet50": kusari_cv.links.ResNet50,
    "resnet101": kusari_cv.links.ResNet101,
    "resnet152": kusari_cv.links.ResNet152,
    "se-resnet50": kusari_cv.links.SEResNet50,
    "se-resnext50": kusari_cv.links.SEResNeXt50,
    "vgg16": kusari_cv.links.VGG16,
}


def _rgb(img: np.ndarray) -> np.ndarray:
    """Three channels whatever the file had (grayscale, RGBA)."""
    if img.shape[0] == 1:
        return np.repeat(img, 3, axis=0)
    return img[:3]


class TrainTransform:
    def __init__(self, mean: np.ndarray, crop_size: int) -> None:
        self.mean = mean
        self.crop_size = crop_size

    def __call__(self, in_data):
        img, label = in_data
        img = transforms.random_sized_crop(_rgb(img))
        img = transforms.resize(img, (self.crop_size, self.crop_size))
        img = transforms.random_flip(img, x_random=True)
        return (img - self.mean).astype(np.float32), label


class ValTransform:
    def __init__(self, mean: np.ndarray, crop_size: int, scale_size: int) -> None:
        self.mean = mean
        self.crop_size = crop_size
        self.scale_size = scale_size

    def __call__(self, in_data):
        img, label = in_data
        img = transforms.scale(_rgb(img), self.scale_size)
        img = transforms.center_crop(img, (self.crop_size, self.crop_size))
        return (img - self.mean).astype(np.float32), label


def _save_args(args: argparse.Namespace, out: str) -> None:
    """``out/args`` as JSON, for kusari-ui (written atomically)."""
    os.makedirs(out, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".args.")
    with os.fdopen(fd, "w") as f:
        json.dump(vars(args), f, indent=1)
    os.replace(tmp, os.path.join(out, "args"))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("train", help="list file of training images and labels")
    parser.add_argument("val", help="list file of validation images and labels")
    parser.add_argument("--root", default=".", help="directory the paths start at")
    parser.add_argument("--model", choices=sorted(MODELS), default="resnet50")
    parser.add_argument("--n-class", type=int, default=1000)
    parser.add_argument("--arch", choices=("fb", "he"), default="fb")
    parser.add_argument("--batchsize", "-b", type=int, default=32)
    parser.add_argument("--lr", type=float, default=None, help="0.1 * batch / 256")
    parser.add_argument("--epoch", "-e", type=int, default=90)
    parser.add_argument(
        "--iteration", type=int, default=0, help="stop after this many (smoke tests)"
    )
    parser.add_argument("--crop-size", type=int, default=224)
    parser.add_argument("--scale-size", type=int, default=256)
    parser.add_argument("--loaderjob", "-j", type=int, default=0)
    parser.add_argument("--device", "-d", default="@numpy")
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--log-interval", type=int, default=100)
    args = parser.parse_args(argv)

    device = kusari.get_device(
        int(args.device) if args.device.lstrip("-").isdigit() else args.device
    )
    kwargs = {"n_class": args.n_class}
    if args.model.startswith("resnet"):
        kwargs["arch"] = args.arch
    extractor = MODELS[args.model](**kwargs)
    extractor.pick = "fc8" if args.model == "vgg16" else "fc6"  # logits
    model = L.Classifier(extractor)
    model.to_device(device)
    device.use()

    mean = extractor.mean
    train = kusari.datasets.TransformDataset(
        kusari.datasets.LabeledImageDataset(args.train, args.root),
        TrainTransform(mean, args.crop_size),
    )
    val = kusari.datasets.TransformDataset(
        kusari.datasets.LabeledImageDataset(args.val, args.root),
        ValTransform(mean, args.crop_size, args.scale_size),
    )
    _save_args(args, args.out)
    if args.loaderjob > 0:
        train_iter = kusari.iterators.MultiprocessIterator(
            train, args.batchsize, n_processes=args.loaderjob
        )
        val_iter = kusari.iterators.MultiprocessIterator(
            val, args.batchsize, repeat=False, shuffle=False,
            n_processes=args.loaderjob,
        )  # fmt: skip
    else:
        train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
        val_iter = kusari.iterators.SerialIterator(
            val, args.batchsize, repeat=False, shuffle=False
        )

    lr = args.lr if args.lr is not None else 0.1 * args.batchsize / 256
    optimizer = kusari.optimizers.CorrectedMomentumSGD(lr=lr, momentum=0.9)
    optimizer.setup(model)
    for param in model.params():
        # Weight decay on the kernels only, not on batch normalization.
        if param.name not in ("beta", "gamma"):
            param.update_rule.add_hook(kusari.optimizer_hooks.WeightDecay(1e-4))

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    stop = (args.iteration, "iteration") if args.iteration else (args.epoch, "epoch")
    trainer = training.Trainer(updater, stop, out=args.out)
    log_interval = (
        min(args.log_interval, args.iteration or args.log_interval),
        "iteration",
    )
    eval_trigger = (args.iteration, "iteration") if args.iteration else (1, "epoch")

    trainer.extend(
        extensions.ExponentialShift("lr", 0.1),
        trigger=training.triggers.ManualScheduleTrigger([30, 60, 80], "epoch"),
    )
    trainer.extend(
        extensions.Evaluator(val_iter, model, device=device), trigger=eval_trigger
    )
    trainer.extend(
        extensions.snapshot_object(extractor, "model_iter_{.updater.iteration}.npz"),
        trigger=eval_trigger,
    )
    trainer.extend(extensions.LogReport(trigger=log_interval))
    trainer.extend(extensions.observe_lr(), trigger=log_interval)
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "elapsed_time", "lr", "main/loss",
             "validation/main/loss", "main/accuracy", "validation/main/accuracy"]
        ),
        trigger=log_interval,
    )  # fmt: skip
    trainer.run()
    log = trainer.get_extension("LogReport").log
    return log[-1] if log else {}


if __name__ == "__main__":
    main()
