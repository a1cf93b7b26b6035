"""Train Faster R-CNN (VGG-16) on PASCAL VOC-format data (ChainerCV's recipe).

One image per batch, momentum SGD (lr 1e-3, weight decay 5e-4), the learning
rate divided by 10 after ``--step-size`` iterations, VOC07 mAP on the test
split then and at the end.

Example (VOC 2007 trainval, tested on VOC 2007 test)::

    python train.py --data-dir VOCdevkit/VOC2007 --test-data-dir VOCdevkit/VOC2007 \\
        --gpu 0

A few CPU iterations on a small folder::

    python train.py --data-dir tiny --test-data-dir tiny --iteration 2 --step-size 1 \\
        --min-size 64 --max-size 96 --pretrained-model none --no-progress
"""

from __future__ import annotations

import argparse
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
from kusari_cv.links import FasterRCNNVGG16
from kusari_cv.links.model.faster_rcnn import FasterRCNNTrainChain

# voc_detection.py, shared by the detection examples, is one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import voc_detection


class Transform:
    """Resize as the model's ``prepare`` does, then flip at random."""

    def __init__(self, faster_rcnn: Any) -> None:
        self.faster_rcnn = faster_rcnn

    def __call__(self, in_data: tuple[Any, Any, Any]) -> tuple[Any, Any, Any, Any]:
        img, bbox, label = in_data
        _, H, W = img.shape
        img = self.faster_rcnn.prepare(img)
        _, o_H, o_W = img.shape
        scale = o_H / H
        bbox = transforms.resize_bbox(bbox, (H, W), (o_H, o_W))
        img, param = transforms.random_flip(img, x_random=True, return_param=True)
        bbox = transforms.flip_bbox(bbox, (o_H, o_W), x_flip=param["x_flip"])
        return img, bbox, label, np.float32(scale)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    voc_detection.add_train_arguments(parser)
    parser.add_argument("--min-size", type=int, default=600)
    parser.add_argument("--max-size", type=int, default=1000)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--step-size", type=int, default=50000)
    parser.add_argument("--iteration", type=int, default=70000)
    parser.add_argument("--seed", type=int, default=0)
    voc_detection.add_run_arguments(parser, log_interval=20)
    args = parser.parse_args(argv)

    np.random.seed(args.seed)
    train_data = voc_detection.voc_train_dataset(args.data_dir, args.train_split)
    test_data = voc_detection.voc_test_dataset(args.test_data_dir, args.test_split)

    faster_rcnn = FasterRCNNVGG16(
        n_fg_class=len(voc_bbox_label_names),
        pretrained_model=voc_detection.pretrained(args),
        min_size=args.min_size,
        max_size=args.max_size,
    )
    faster_rcnn.use_preset("evaluate")
    model = FasterRCNNTrainChain(faster_rcnn)
    voc_detection.to_device(model, args.gpu)
    # materialise the lazily initialised extractor before the optimizer's hooks
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        faster_rcnn.extractor(faster_rcnn.xp.zeros((1, 3, 32, 32), np.float32))
    optimizer = kusari.optimizers.MomentumSGD(lr=args.lr, momentum=0.9)
    optimizer.setup(model)
    optimizer.add_hook(WeightDecay(rate=0.0005))

    train_iter = kusari.iterators.SerialIterator(
        TransformDataset(train_data, Transform(faster_rcnn)), batch_size=1
    )
    test_iter = kusari.iterators.SerialIterator(
        test_data, batch_size=1, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=args.gpu)
    trainer = training.Trainer(updater, (args.iteration, "iteration"), out=args.out)

    trainer.extend(
        extensions.snapshot_object(
            model.faster_rcnn, "model_iter_{.updater.iteration}"
        ),
        trigger=(args.iteration, "iteration"),
    )
    trainer.extend(
        extensions.ExponentialShift("lr", 0.1), trigger=(args.step_size, "iteration")
    )
    log_interval = (args.log_interval, "iteration")
    trainer.extend(extensions.observe_lr(), trigger=log_interval)
    trainer.extend(extensions.LogReport(trigger=log_interval))
    trainer.extend(
        extensions.PrintReport(
            [
                "iteration",
                "epoch",
                "elapsed_time",
                "lr",
                "main/loss",
                "main/roi_loc_loss",
                "main/roi_cls_loss",
                "main/rpn_loc_loss",
                "main/rpn_cls_loss",
                "validation/main/map",
            ]
        ),
        trigger=log_interval,
    )
    trainer.extend(
        DetectionVOCEvaluator(
            test_iter,
            model.faster_rcnn,
            use_07_metric=True,
            label_names=voc_bbox_label_names,
        ),
        trigger=triggers.ManualScheduleTrigger(
            [args.step_size, args.iteration], "iteration"
        ),
    )
    voc_detection.run_trainer(trainer, args)


if __name__ == "__main__":
    main()
