#!/usr/bin/env python
"""Train SegNet Basic on CamVid with kusari-cv.

    python train.py --data-dir auto --device @cupy:0

``--data-dir auto`` downloads CamVid (the SegNet tutorial's copy) into the
dataset cache; any folder in the same layout (``train.txt``, ``val.txt`` and
the images and annotations they list) works too. The loss is the per-pixel
softmax cross entropy weighted by median frequency balancing (computed from
the training labels, or read from ``--class-weight file.npy``); momentum SGD
with weight decay 5e-4, mean IoU on the validation split every
``--val-interval`` iterations.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile

import numpy as np

import kusari
from kusari import training
from kusari.training import extensions
from kusari_cv.datasets import CamVidDataset, camvid_label_names
from kusari_cv.extensions import SemanticSegmentationEvaluator
from kusari_cv.links import PixelwiseSoftmaxClassifier, SegNetBasic


def median_frequency_weight(dataset, n_class: int) -> np.ndarray:
    """Class weights ``median(freq) / freq``, where ``freq[c]`` is the share of
    class ``c`` among the pixels of the images that contain ``c``."""
    n_class_pixels = np.zeros(n_class)
    n_image_pixels = np.zeros(n_class)
    for i in range(len(dataset)):
        label = dataset[i][1]
        for c in np.unique(label):
            if c < 0:
                continue
            n_class_pixels[c] += np.sum(label == c)
            n_image_pixels[c] += label.size
    seen = n_image_pixels > 0
    freq = np.ones(n_class)
    freq[seen] = n_class_pixels[seen] / n_image_pixels[seen]
    weight = np.median(freq[seen]) / freq
    weight[~seen] = 0.0
    return weight.astype(np.float32)


def random_flip(in_data):
    img, label = in_data
    if np.random.rand() > 0.5:
        img = img[:, :, ::-1]
        label = label[:, ::-1]
    return np.ascontiguousarray(img), np.ascontiguousarray(label)


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
    parser.add_argument("--data-dir", default="auto")
    parser.add_argument("--device", "-d", default="@numpy")
    parser.add_argument("--batchsize", "-b", type=int, default=12)
    parser.add_argument(
        "--class-weight", default="auto", help="an .npy file, 'auto' or 'none'"
    )
    parser.add_argument("--iteration", type=int, default=16000)
    parser.add_argument("--val-interval", type=int, default=2000)
    parser.add_argument("--log-interval", type=int, default=10)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--out", "-o", default="result")
    args = parser.parse_args(argv)

    device = kusari.get_device(
        int(args.device) if args.device.lstrip("-").isdigit() else args.device
    )
    n_class = len(camvid_label_names)
    train = CamVidDataset(args.data_dir, split="train")
    val = CamVidDataset(args.data_dir, split="val")
    if args.class_weight == "auto":
        class_weight = median_frequency_weight(train, n_class)
    elif args.class_weight == "none":
        class_weight = None
    else:
        class_weight = np.load(args.class_weight)
    _save_args(args, args.out)

    model = PixelwiseSoftmaxClassifier(
        SegNetBasic(n_class=n_class), class_weight=class_weight
    )
    model.to_device(device)
    device.use()
    optimizer = kusari.optimizers.MomentumSGD(lr=args.lr, momentum=0.9)
    optimizer.setup(model)
    optimizer.add_hook(kusari.optimizer_hooks.WeightDecay(rate=0.0005))

    train_iter = kusari.iterators.SerialIterator(
        kusari.datasets.TransformDataset(train, random_flip), args.batchsize
    )
    val_iter = kusari.iterators.SerialIterator(
        val, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.iteration, "iteration"), out=args.out)
    log_trigger = (min(args.log_interval, args.iteration), "iteration")
    val_trigger = (min(args.val_interval, args.iteration), "iteration")

    trainer.extend(
        SemanticSegmentationEvaluator(val_iter, model.predictor, camvid_label_names),
        trigger=val_trigger,
    )
    trainer.extend(
        extensions.snapshot_object(
            model.predictor, "model_iter_{.updater.iteration}.npz"
        ),
        trigger=val_trigger,
    )
    trainer.extend(extensions.LogReport(trigger=log_trigger))
    trainer.extend(extensions.observe_lr(), trigger=log_trigger)
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "elapsed_time", "lr", "main/loss",
             "validation/main/miou", "validation/main/mean_class_accuracy",
             "validation/main/pixel_accuracy"]
        ),
        trigger=log_trigger,
    )  # fmt: skip
    trainer.run()
    log = trainer.get_extension("LogReport").log
    return log[-1] if log else {}


if __name__ == "__main__":
    main()
