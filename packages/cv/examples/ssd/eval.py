"""Evaluate SSD300 / SSD512 on PASCAL VOC-format data (VOC07 11-point mAP).

Example::

    python eval.py --pretrained-model voc0712 --data-dir VOCdevkit/VOC2007
    python eval.py --pretrained-model result/model_iter_120000 \\
        --data-dir VOCdevkit/VOC2007 --gpu 0
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kusari_cv.datasets import voc_bbox_label_names
from kusari_cv.links import SSD300, SSD512

# voc_detection.py, shared by the detection examples, is one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import voc_detection


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=("ssd300", "ssd512"), default="ssd300")
    voc_detection.add_eval_arguments(parser, pretrained_model="voc0712")
    parser.add_argument("--batchsize", type=int, default=32)
    parser.add_argument("--gpu", type=int, default=-1)
    args = parser.parse_args(argv)

    model_cls = SSD300 if args.model == "ssd300" else SSD512
    model = model_cls(
        n_fg_class=len(voc_bbox_label_names), pretrained_model=args.pretrained_model
    )
    return voc_detection.evaluate(model, args, batchsize=args.batchsize)


if __name__ == "__main__":
    main()
