"""Shared reader of COCO ``instances_*.json`` / ``person_keypoints_*.json``."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

import numpy as np

from kusari_cv.chainer_experimental.datasets.sliceable import GetterDataset
from kusari_cv.datasets._common import require
from kusari_cv.datasets.coco.coco_mask import segmentation_to_mask
from kusari_cv.datasets.coco.coco_utils import get_coco
from kusari_cv.utils.image import read_image

_SPLITS_2014 = ("train", "val", "minival", "valminusminival")


class COCOInstancesBaseDataset(GetterDataset):
    """Base of the COCO datasets built on per-object annotations.

    Registers the getters ``img``, ``mask`` and
    ``(bbox, label, area, crowded)``; subclasses pick :attr:`keys`. Objects
    with an empty box, and crowd regions unless ``use_crowded``, are dropped
    from every column alike.
    """

    def __init__(
        self,
        data_dir: str = "auto",
        split: str = "train",
        year: str = "2017",
        use_crowded: bool = False,
        mode: str = "instances",
    ) -> None:
        super().__init__()
        owner = type(self).__name__
        if year == "2017" and split not in ("train", "val"):
            raise ValueError(
                f"{owner}: COCO 2017 has the splits 'train' and 'val', got {split!r}"
            )
        if year == "2014" and split not in _SPLITS_2014:
            raise ValueError(
                f"{owner}: COCO 2014 has the splits {_SPLITS_2014}, got {split!r}"
            )
        img_split = "val" if split in ("val", "minival", "valminusminival") else "train"
        if data_dir == "auto":
            data_dir = get_coco(split, img_split, year, mode, owner)
        self.data_dir = data_dir
        self.use_crowded = use_crowded
        self.img_root = os.path.join(data_dir, "images", f"{img_split}{year}")
        anno_path = os.path.join(data_dir, "annotations", f"{mode}_{split}{year}.json")
        require(anno_path, owner, f"the {mode} annotation file of {split}{year}")
        with open(anno_path) as f:
            annos = json.load(f)
        for field in ("images", "annotations", "categories"):
            if field not in annos:
                raise ValueError(f"{owner}: {anno_path!r} has no {field!r} list")

        self.id_to_prop = {prop["id"]: prop for prop in annos["images"]}
        self.ids = sorted(self.id_to_prop)
        self.cat_ids = [cat["id"] for cat in annos["categories"]]
        self._cat_index = {cat_id: i for i, cat_id in enumerate(self.cat_ids)}
        self.id_to_anno: dict[Any, list[dict[str, Any]]] = defaultdict(list)
        for anno in annos["annotations"]:
            self.id_to_anno[anno["image_id"]].append(anno)

        self.add_getter("img", self._get_image)
        self.add_getter("mask", self._get_mask)
        self.add_getter(("bbox", "label", "area", "crowded"), self._get_annotations)

    def __len__(self) -> int:
        return len(self.ids)

    def _get_image(self, i: int) -> np.ndarray:
        name = self.id_to_prop[self.ids[i]]["file_name"]
        path = os.path.join(self.img_root, name)
        require(path, type(self).__name__, f"the image {name!r}")
        return read_image(path, dtype=np.float32, color=True)

    def _keep(self, annos: list[dict[str, Any]]) -> np.ndarray:
        """Which objects survive: a box with positive area, not crowd."""
        xywh = np.array([a["bbox"] for a in annos], dtype=np.float32).reshape(-1, 4)
        keep = (xywh[:, 2] > 0) & (xywh[:, 3] > 0)
        if not self.use_crowded:
            crowded = np.array([bool(a.get("iscrowd", 0)) for a in annos], dtype=bool)
            keep &= ~crowded
        return keep

    def _get_mask(self, i: int) -> np.ndarray:
        prop = self.id_to_prop[self.ids[i]]
        height, width = int(prop["height"]), int(prop["width"])
        annos = self.id_to_anno[self.ids[i]]
        masks = []
        for anno, keep in zip(annos, self._keep(annos), strict=True):
            if not keep:
                continue
            if "segmentation" not in anno:
                raise ValueError(
                    f"{type(self).__name__}: annotation {anno.get('id')} of image "
                    f"{self.ids[i]} has no 'segmentation'"
                )
            mask = segmentation_to_mask(anno["segmentation"], height, width)
            if mask.shape != (height, width):
                # A few minival RLEs carry a wrong size: keep the object (so
                # masks stay aligned with labels) with an empty mask.
                mask = np.zeros((height, width), dtype=bool)
            masks.append(mask)
        if not masks:
            return np.zeros((0, height, width), dtype=bool)
        return np.stack(masks)

    def _get_annotations(
        self, i: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        annos = self.id_to_anno[self.ids[i]]
        keep = self._keep(annos)
        annos = [a for a, k in zip(annos, keep, strict=True) if k]
        xywh = np.array([a["bbox"] for a in annos], dtype=np.float32).reshape(-1, 4)
        # (x, y, w, h) -> (y_min, x_min, y_max, x_max)
        bbox = np.stack(
            [xywh[:, 1], xywh[:, 0], xywh[:, 1] + xywh[:, 3], xywh[:, 0] + xywh[:, 2]],
            axis=1,
        )
        try:
            label = np.array(
                [self._cat_index[a["category_id"]] for a in annos], dtype=np.int32
            )
        except KeyError as e:
            raise ValueError(
                f"{type(self).__name__}: category id {e.args[0]} of image "
                f"{self.ids[i]} is not in the annotation file's categories"
            ) from None
        area = np.array([a.get("area", 0) for a in annos], dtype=np.float32)
        crowded = np.array([bool(a.get("iscrowd", 0)) for a in annos], dtype=bool)
        return bbox, label, area, crowded
