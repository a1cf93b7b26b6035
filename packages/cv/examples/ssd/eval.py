"""Evaluate SSD300 / SSD512 on PASCAL VOC-format data (VOC07 11-point mAP).

Example::

    python eval.py --pretrained-model voc0712 --data-dir VOCdevkit/VOC2007
    python eval.py --pretrained-model result/model_iter_120000 \\
        --data-dir VOCdevkit/VOC2007 --gpu 0
"""

from __future__ import annotations

import argparse

import numpy as np

import kusari
from kusari_cv.datasets import VOCBboxDataset, voc_bbox_label_names
from kusari_cv.evaluations import eval_detection_voc
from kusari_cv.links import SSD300, SSD512
from kusari_cv.utils import apply_to_iterator


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("ssd300", "ssd512"), default="ssd300")
    parser.add_argument("--pretrained-model", default="voc0712")
    parser.add_argument("--data-dir", required=True, help="a VOC<year> folder")
    parser.add_argument("--split", default="test")
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--gpu", type=int, default=-1)
    args = parser.parse_args(argv)

    model_cls = SSD300 if args.model == "ssd300" else SSD512
    model = model_cls(
        n_fg_class=len(voc_bbox_label_names), pretrained_model=args.pretrained_model
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
    iterator = kusari.iterators.SerialIterator(
        dataset, args.batchsize, repeat=False, shuffle=False
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


if __name__ == "__main__":
    main()
