"""Train SSD300 / SSD512 on PASCAL VOC-format data (ChainerCV's recipe).

The recipe: SSD's photometric distortion, zoom out, IoU-constrained crops,
random interpolation and flips; momentum SGD with weight decay 5e-4 and
biases trained at twice the learning rate; the learning rate is divided by
10 at each ``--step``; VOC07 mAP on ``--test-split`` at each step and at the
end.

Example (VOC 2007+2012 trainval, tested on VOC 2007 test)::

    python train.py --data-dir VOCdevkit/VOC2007 --data-dir VOCdevkit/VOC2012 \\
        --test-data-dir VOCdevkit/VOC2007 --gpu 0

A few CPU iterations on a small folder::

    python train.py --data-dir tiny --test-data-dir tiny --iteration 2 \\
        --batchsize 2 --pretrained-model none --step 1 --no-progress
"""

from __future__ import annotations

import argparse
import copy
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

import kusari
from kusari import training
from kusari.datasets import TransformDataset
from kusari.optimizer_hooks import WeightDecay
from kusari.training import extensions, triggers
from kusari_cv import transforms
from kusari_cv.datasets import voc_bbox_label_names
from kusari_cv.extensions import DetectionVOCEvaluator
from kusari_cv.links import SSD300, SSD512
from kusari_cv.links.model.ssd import (
    GradientScaling,
    multibox_loss,
    random_crop_with_bbox_constraints,
    random_distort,
    resize_with_random_interpolation,
)

# voc_detection.py, shared by the detection examples, is one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import voc_detection


class MultiboxTrainChain(kusari.Chain):
    """Return ``alpha * loc_loss + conf_loss`` of an SSD and report both."""

    def __init__(self, model: Any, alpha: float = 1, k: float = 3) -> None:
        super().__init__()
        with self.init_scope():
            self.model = model
        self.alpha = alpha
        self.k = k

    def forward(self, imgs: Any, gt_mb_locs: Any, gt_mb_labels: Any) -> Any:
        mb_locs, mb_confs = self.model(imgs)
        loc_loss, conf_loss = multibox_loss(
            mb_locs, mb_confs, gt_mb_locs, gt_mb_labels, self.k
        )
        loss = loc_loss * self.alpha + conf_loss
        kusari.reporter.report(
            {"loss": loss, "loss/loc": loc_loss, "loss/conf": conf_loss}, self
        )
        return loss


class Transform:
    """SSD's augmentation, then encoding of the boxes into default boxes."""

    def __init__(self, coder: Any, size: int, mean: Any) -> None:
        # the coder is copied so that each worker process owns one
        self.coder = copy.copy(coder)
        self.size = size
        self.mean = mean

    def __call__(self, in_data: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        img, bbox, label = in_data
        img = random_distort(img)
        if random.randrange(2):
            img, param = transforms.random_expand(
                img, fill=self.mean, return_param=True
            )
            bbox = transforms.translate_bbox(
                bbox, y_offset=param["y_offset"], x_offset=param["x_offset"]
            )
        img, param = random_crop_with_bbox_constraints(img, bbox, return_param=True)
        bbox, param = transforms.crop_bbox(
            bbox,
            y_slice=param["y_slice"],
            x_slice=param["x_slice"],
            allow_outside_center=False,
            return_param=True,
        )
        label = label[param["index"]]
        _, H, W = img.shape
        img = resize_with_random_interpolation(img, (self.size, self.size))
        bbox = transforms.resize_bbox(bbox, (H, W), (self.size, self.size))
        img, param = transforms.random_flip(img, x_random=True, return_param=True)
        bbox = transforms.flip_bbox(
            bbox, (self.size, self.size), x_flip=param["x_flip"]
        )
        img = (img - self.mean).astype(np.float32)
        mb_loc, mb_label = self.coder.encode(bbox, label)
        return img, mb_loc, mb_label


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("ssd300", "ssd512"), default="ssd300")
    voc_detection.add_train_arguments(parser)
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--iteration", type=int, default=120000)
    parser.add_argument("--step", type=int, nargs="*", default=[80000, 100000])
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument(
        "--loaderjob",
        type=int,
        default=0,
        help="worker processes of the training iterator (0: serial)",
    )
    voc_detection.add_run_arguments(parser, log_interval=10)
    args = parser.parse_args(argv)

    model_cls = SSD300 if args.model == "ssd300" else SSD512
    model = model_cls(
        n_fg_class=len(voc_bbox_label_names),
        pretrained_model=voc_detection.pretrained(args),
    )
    model.use_preset("evaluate")
    train_chain = MultiboxTrainChain(model)
    voc_detection.to_device(model, args.gpu)

    train = TransformDataset(
        voc_detection.voc_train_dataset(args.data_dir, args.train_split),
        Transform(model.coder, model.insize, model.mean),
    )
    if args.loaderjob > 0:
        train_iter: Any = kusari.iterators.MultiprocessIterator(
            train, args.batchsize, n_processes=args.loaderjob
        )
    else:
        train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    test = voc_detection.voc_test_dataset(args.test_data_dir, args.test_split)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    # initial lr is set by ExponentialShift's init below
    optimizer = kusari.optimizers.MomentumSGD()
    optimizer.setup(train_chain)
    # the heads are lazily initialised: materialise them before adding hooks
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        model(model.xp.zeros((1, 3, model.insize, model.insize), np.float32))
    for param in train_chain.params():
        if param.name == "b":
            param.update_rule.add_hook(GradientScaling(2))
        else:
            param.update_rule.add_hook(WeightDecay(0.0005))

    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=args.gpu)
    trainer = training.Trainer(updater, (args.iteration, "iteration"), args.out)
    trainer.extend(
        extensions.ExponentialShift("lr", 0.1, init=args.lr),
        trigger=triggers.ManualScheduleTrigger(args.step, "iteration"),
    )
    trainer.extend(
        DetectionVOCEvaluator(
            test_iter, model, use_07_metric=True, label_names=voc_bbox_label_names
        ),
        trigger=triggers.ManualScheduleTrigger(
            args.step + [args.iteration], "iteration"
        ),
    )
    log_interval = (args.log_interval, "iteration")
    trainer.extend(extensions.LogReport(trigger=log_interval))
    trainer.extend(extensions.observe_lr(), trigger=log_interval)
    trainer.extend(
        extensions.PrintReport(
            [
                "epoch",
                "iteration",
                "lr",
                "main/loss",
                "main/loss/loc",
                "main/loss/conf",
                "validation/main/map",
            ]
        ),
        trigger=log_interval,
    )
    trainer.extend(
        extensions.snapshot(),
        trigger=triggers.ManualScheduleTrigger(
            args.step + [args.iteration], "iteration"
        ),
    )
    trainer.extend(
        extensions.snapshot_object(model, "model_iter_{.updater.iteration}"),
        trigger=(args.iteration, "iteration"),
    )
    voc_detection.run_trainer(trainer, args)


if __name__ == "__main__":
    main()
