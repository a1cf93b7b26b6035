"""PASCAL VOC bounding boxes."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np

from kusari_cv.datasets._common import ImageIdsDataset, require
from kusari_cv.datasets.voc import voc_utils


class VOCBboxDataset(ImageIdsDataset):
    """Bounding box dataset for PASCAL VOC.

    Reads ``<data_dir>/ImageSets/Main/<split>.txt``, ``Annotations/<id>.xml``
    and ``JPEGImages/<id>.jpg`` (the ``VOCdevkit/VOC<year>`` folder).

    Args:
        data_dir: The ``VOC<year>`` folder, or ``'auto'`` to use (and if
            needed download) ``<dataset root>/pfnet/chainercv/voc``.
        split: ``'train'``, ``'val'``, ``'trainval'``, or ``'test'`` (2007
            only); any name with an ``ImageSets/Main`` list works locally.
        year: ``'2007'`` or ``'2012'``.
        use_difficult: Keep objects marked difficult.
        return_difficult: Also return the ``difficult`` flags.
        labels: Tuple of class names (default :data:`voc_bbox_label_names`).

    Returns examples with the keys

    ======================  ===========  =======  ==============================
    key                     shape        dtype    format
    ======================  ===========  =======  ==============================
    ``img``                 (3, H, W)    float32  RGB, [0, 255]
    ``bbox``                (R, 4)       float32  (y_min, x_min, y_max, x_max)
    ``label``               (R,)         int32    [0, #fg_class - 1]
    ``difficult`` (option)  (R,)         bool     --
    ======================  ===========  =======  ==============================

    Coordinates are 0-based (VOC's 1-based pixel indices minus one).
    """

    def __init__(
        self,
        data_dir: str = "auto",
        split: str = "train",
        year: str = "2012",
        use_difficult: bool = False,
        return_difficult: bool = False,
        labels: tuple[str, ...] | None = None,
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        if data_dir == "auto":
            data_dir = voc_utils.get_voc(year, split, owner)
        if labels is None:
            labels = voc_utils.voc_bbox_label_names
        elif not isinstance(labels, tuple):
            raise TypeError(
                f"{owner}: labels must be a tuple of names, got {type(labels).__name__}"
            )
        self.data_dir = data_dir
        self.ids = voc_utils.read_ids(data_dir, "Main", split, owner)
        self.use_difficult = use_difficult
        self.labels = labels

        self.add_getter("img", self._get_image)
        self.add_getter(("bbox", "label", "difficult"), self._get_annotations)
        if not return_difficult:
            self.keys = ("img", "bbox", "label")

    def _get_annotations(self, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        owner = type(self).__name__
        path = os.path.join(self.data_dir, "Annotations", self.ids[i] + ".xml")
        require(path, owner, f"the annotation of {self.ids[i]!r}")
        bbox, label, difficult = [], [], []
        for obj in ET.parse(path).findall("object"):
            flag = obj.findtext("difficult")
            is_difficult = flag is not None and int(flag) == 1
            if is_difficult and not self.use_difficult:
                continue
            name = (obj.findtext("name") or "").lower().strip()
            if name not in self.labels:
                raise ValueError(
                    f"{owner}: {path!r} has an object named {name!r}, which is "
                    f"not one of the labels {self.labels}"
                )
            box = obj.find("bndbox")
            if box is None:
                raise ValueError(f"{owner}: an object in {path!r} has no <bndbox>")
            # VOC pixel indices start at 1.
            coords = []
            for tag in ("ymin", "xmin", "ymax", "xmax"):
                text = box.findtext(tag)
                if text is None:
                    raise ValueError(f"{owner}: a <bndbox> in {path!r} lacks <{tag}>")
                coords.append(float(text) - 1)
            bbox.append(coords)
            label.append(self.labels.index(name))
            difficult.append(is_difficult)
        return (
            np.array(bbox, dtype=np.float32).reshape(-1, 4),
            np.array(label, dtype=np.int32),
            np.array(difficult, dtype=bool),
        )
