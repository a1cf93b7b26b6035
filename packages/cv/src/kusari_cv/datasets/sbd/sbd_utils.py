"""Semantic Boundaries Dataset (SBD): download and VOC2012-style split lists."""

from __future__ import annotations

import os
import shutil

from kusari_cv.datasets._common import download, prepare
from kusari_cv.datasets.voc.voc_utils import voc_instance_segmentation_label_names

url = (
    "http://www.eecs.berkeley.edu/Research/Projects/CS/vision/grouping/"
    "semantic_contours/benchmark.tgz"
)
md5 = "82b4d87ceb2ed10f6038a1cba92111cb"
#: SBD's train split without the images of VOC2012 val.
train_voc2012_url = "http://home.bharathh.info/pubs/codes/SBD/train_noval.txt"
train_voc2012_md5 = "79bff800c5f0b1ec6b21080a3c066722"


def _write_lines(path: str, lines: list[str]) -> None:
    part = path + ".part"
    with open(part, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(part, path)


def _generate_voc2012_lists(base: str) -> None:
    """Write ``val_voc2012.txt`` and ``trainval_voc2012.txt`` next to train."""

    def read(name: str) -> list[str]:
        with open(os.path.join(base, name)) as f:
            return [line.strip() for line in f if line.strip()]

    every = sorted(set(read("train.txt")) | set(read("val.txt")))
    train = set(read("train_voc2012.txt"))
    _write_lines(
        os.path.join(base, "val_voc2012.txt"), [i for i in every if i not in train]
    )
    _write_lines(os.path.join(base, "trainval_voc2012.txt"), every)


def get_sbd(owner: str = "get_sbd") -> str:
    """Return ``.../benchmark_RELEASE/dataset``, downloading it when missing."""

    def base(root: str) -> str:
        return os.path.join(root, "benchmark_RELEASE", "dataset")

    def ready(root: str) -> bool:
        return os.path.exists(os.path.join(base(root), "trainval_voc2012.txt"))

    def finish(root: str) -> None:
        part = os.path.join(base(root), "train_voc2012.txt.part")
        shutil.copyfile(
            download(train_voc2012_url, owner, root, train_voc2012_md5), part
        )
        os.replace(part, os.path.join(base(root), "train_voc2012.txt"))
        _generate_voc2012_lists(base(root))

    return base(prepare("sbd", owner, ready, [(url, md5)], finish=finish))


sbd_instance_segmentation_label_names = voc_instance_segmentation_label_names
