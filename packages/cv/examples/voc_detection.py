"""What the detection examples (``faster_rcnn/``, ``ssd/``) share: their
command-line options, the PASCAL VOC-format data sets, VOC07 evaluation and
the end of a training run.

The scripts import it by putting this folder on ``sys.path``.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import kusari
from kusari.datasets import ConcatenatedDataset
from kusari.training import extensions
from kusari_cv.datasets import VOCBboxDataset, voc_bbox_label_names
from kusari_cv.evaluations import eval_detection_voc
from kusari_cv.utils import apply_to_iterator


def add_train_arguments(parser: argparse.ArgumentParser) -> None:
    """The data options of a training script: ``--data-dir`` (repeatable),
    ``--train-split``, ``--test-data-dir``, ``--test-split`` and
    ``--pretrained-model`` (``'none'`` for random weights)."""
    parser.add_argument(
        "--data-dir",
        action="append",
        required=True,
        help="a VOC<year> folder to train on (repeatable)",
    )
    parser.add_argument("--train-split", default="trainval")
    parser.add_argument("--test-data-dir", required=True)
    parser.add_argument("--test-split", default="test")
    parser.add_argument(
        "--pretrained-model",
        default="imagenet",
        help="'imagenet', an npz path, or 'none'",
    )


def add_run_arguments(parser: argparse.ArgumentParser, log_interval: int) -> None:
    """``--gpu``, ``--out``, ``--resume``, ``--log-interval`` and
    ``--no-progress``."""
    parser.add_argument("--gpu", type=int, default=-1)
    parser.add_argument("--out", default="result")
    parser.add_argument("--resume")
    parser.add_argument("--log-interval", type=int, default=log_interval)
    parser.add_argument("--no-progress", action="store_true")


def pretrained(args: argparse.Namespace) -> str | None:
    """``--pretrained-model``, None for ``'none'``."""
    return None if args.pretrained_model == "none" else args.pretrained_model


def voc_train_dataset(dirs: list[str], split: str) -> Any:
    """The ``split`` of every folder in ``dirs``, concatenated."""
    sets = [VOCBboxDataset(data_dir=d, split=split) for d in dirs]
    return sets[0] if len(sets) == 1 else ConcatenatedDataset(*sets)


def voc_test_dataset(data_dir: str, split: str) -> VOCBboxDataset:
    """The ``split`` of ``data_dir`` with difficult objects, flagged."""
    return VOCBboxDataset(
        data_dir=data_dir, split=split, use_difficult=True, return_difficult=True
    )


def to_device(model: kusari.Link, gpu: int) -> None:
    """Move ``model`` to GPU ``gpu`` (none for a negative id)."""
    if gpu >= 0:
        kusari.backends.cuda.get_device_from_id(gpu).use()
        model.to_device(gpu)


def run_trainer(trainer: Any, args: argparse.Namespace) -> None:
    """Add the progress bar (unless ``--no-progress``), resume from
    ``--resume`` and run."""
    if not args.no_progress:
        trainer.extend(extensions.ProgressBar(update_interval=10))
    if args.resume:
        kusari.serializers.load_npz(args.resume, trainer)
    trainer.run()


def add_eval_arguments(parser: argparse.ArgumentParser, pretrained_model: str) -> None:
    """``--pretrained-model``, ``--data-dir`` and ``--split`` of an evaluation
    script."""
    parser.add_argument("--pretrained-model", default=pretrained_model)
    parser.add_argument("--data-dir", required=True, help="a VOC<year> folder")
    parser.add_argument("--split", default="test")


def evaluate(model: Any, args: argparse.Namespace, batchsize: int) -> dict[str, Any]:
    """VOC07 (11-point) mAP of ``model`` on ``--split`` of ``--data-dir``,
    after the ``'evaluate'`` preset and ``--gpu``; prints the mAP and each
    class's AP and returns :func:`eval_detection_voc`'s result."""
    model.use_preset("evaluate")
    to_device(model, args.gpu)
    dataset = voc_test_dataset(args.data_dir, args.split)
    iterator = kusari.iterators.SerialIterator(
        dataset, batchsize, repeat=False, shuffle=False
    )
    in_values, out_values, rest_values = apply_to_iterator(model.predict, iterator)
    del in_values  # the images are not needed again
    pred_bboxes, pred_labels, pred_scores = out_values
    gt_bboxes, gt_labels, gt_difficults = rest_values
    result = eval_detection_voc(
        pred_bboxes,
        pred_labels,
        pred_scores,
        gt_bboxes,
        gt_labels,
        gt_difficults,
        use_07_metric=True,
    )
    print(f"mAP: {result['map']:f}")
    for name, ap in zip(voc_bbox_label_names, result["ap"]):
        print(f"{name:>12s}: {'nan' if np.isnan(ap) else f'{ap:f}'}")
    return result
