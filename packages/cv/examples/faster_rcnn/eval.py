"""Evaluate Faster R-CNN (VGG-16) on PASCAL VOC-format data (VOC07 11-point mAP).

Example::

    python eval.py --pretrained-model voc07 --data-dir VOCdevkit/VOC2007
"""

from __future__ import annotations

import argparse

import numpy as np

import kusari
from kusari_cv.datasets import VOCBboxDataset, voc_bbox_label_names
from kusari_cv.evaluations import eval_detection_voc
from kusari_cv.links import FasterRCNNVGG16
from kusari_cv.utils import apply_to_iterator


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pretrained-model", default="voc07")
    parser.add_argument("--data-dir", required=True, help="a VOC<year> folder")
    parser.add_argument("--split", default="test")
    parser.add_argument("--min-size", type=int, default=600)
    parser.add_argument("--max-size", type=int, default=1000)
    parser.add_argument("--gpu", type=int, default=-1)
    args = parser.parse_args(argv)

    model = FasterRCNNVGG16(
        n_fg_class=len(voc_bbox_label_names),
        pretrained_model=args.pretrained_model,
        min_size=args.min_size,
        max_size=args.max_size,
    )
    model.use_preset("evaluate")
    if args.gpu >= 0:
        kusari.backends.cuda.get_device_from_id(args.gpu).use()
        model.to_gpu()

    dataset = VOCBboxDataset(
        data_dir=args.data_dir,
        split=args.split,
        use_difficult=True,
        return_difficult=True,
    )
    iterator = kusari.iterators.SerialIterator(dataset, 1, repeat=False, shuffle=False)
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


if __name__ == "__main__":
    main()
