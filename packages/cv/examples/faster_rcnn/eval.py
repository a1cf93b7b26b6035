"""Evaluate Faster R-CNN (VGG-16) on PASCAL VOC-format data (VOC07 11-point mAP).

Example::

    python eval.py --pretrained-model voc07 --data-dir VOCdevkit/VOC2007
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kusari_cv.datasets import voc_bbox_label_names
from kusari_cv.links import FasterRCNNVGG16

# voc_detection.py, shared by the detection examples, is one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import voc_detection


def main(argv: list[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    voc_detection.add_eval_arguments(parser, pretrained_model="voc07")
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
    return voc_detection.evaluate(model, args, batchsize=1)


if __name__ == "__main__":
    main()
