#!/usr/bin/env python
"""Mean IoU of SegNet Basic on CamVid's test split.

    python eval_camvid.py --pretrained-model camvid --data-dir auto

``--pretrained-model`` is ``camvid`` (ChainerCV's published weights,
downloaded once) or an ``.npz`` file such as a snapshot of ``train.py``.
"""

from __future__ import annotations

import argparse

import kusari
from kusari_cv.datasets import CamVidDataset, camvid_label_names
from kusari_cv.evaluations import eval_semantic_segmentation
from kusari_cv.links import SegNetBasic
from kusari_cv.utils import ProgressHook, apply_to_iterator


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--pretrained-model", default="camvid")
    parser.add_argument("--data-dir", default="auto")
    parser.add_argument("--split", choices=("train", "val", "test"), default="test")
    parser.add_argument("--batchsize", "-b", type=int, default=24)
    parser.add_argument("--device", "-d", default="@numpy")
    args = parser.parse_args(argv)

    device = kusari.get_device(
        int(args.device) if args.device.lstrip("-").isdigit() else args.device
    )
    model = SegNetBasic(
        n_class=len(camvid_label_names), pretrained_model=args.pretrained_model
    )
    model.to_device(device)
    device.use()

    dataset = CamVidDataset(args.data_dir, split=args.split)
    iterator = kusari.iterators.SerialIterator(
        dataset, args.batchsize, repeat=False, shuffle=False
    )
    _, (pred_labels,), (gt_labels,) = apply_to_iterator(
        model.predict, iterator, hook=ProgressHook(len(dataset))
    )
    result = eval_semantic_segmentation(pred_labels, gt_labels)
    print()
    for name, iou in zip(camvid_label_names, result["iou"], strict=True):
        print(f"{name:>12s}: {iou:.4f}")
    print("=" * 34)
    print(f"{'mean IoU':>12s}: {result['miou']:.4f}")
    print(f"{'class acc.':>12s}: {result['mean_class_accuracy']:.4f}")
    print(f"{'pixel acc.':>12s}: {result['pixel_accuracy']:.4f}")
    return result


if __name__ == "__main__":
    main()
