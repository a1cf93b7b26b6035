"""MS COCO person keypoints."""

from __future__ import annotations

import numpy as np

from kusari_cv.datasets._common import select_keys
from kusari_cv.datasets.coco.coco_instances_base_dataset import (
    COCOInstancesBaseDataset,
)
from kusari_cv.datasets.coco.coco_utils import coco_keypoint_names


class COCOKeypointDataset(COCOInstancesBaseDataset):
    """Keypoint dataset for MS COCO (people, 17 keypoints each).

    Reads ``<data_dir>/annotations/person_keypoints_<split><year>.json`` and
    the images under ``<data_dir>/images/<split><year>/``.

    Args:
        data_dir: The COCO root, or ``'auto'``.
        split: ``'train'`` or ``'val'``.
        year: ``'2014'`` or ``'2017'``.
        use_crowded: Keep crowd regions.
        return_area: Also return the objects' mask areas.
        return_crowded: Also return the crowd flags.

    ========================  ============  =======  =========================
    key                       shape         dtype    format
    ========================  ============  =======  =========================
    ``img``                   (3, H, W)     float32  RGB, [0, 255]
    ``point``                 (R, K, 2)     float32  (y, x)
    ``visible``               (R, K)        bool     labeled (COCO's v > 0)
    ``bbox``                  (R, 4)        float32  (y_min, x_min, y_max,
                                                     x_max)
    ``label``                 (R,)          int32    [0, #fg_class - 1]
    ``area`` (option)         (R,)          float32  --
    ``crowded`` (option)      (R,)          bool     --
    ========================  ============  =======  =========================

    ``K`` is 17 (:data:`coco_keypoint_names`).
    """

    def __init__(
        self,
        data_dir: str = "auto",
        split: str = "train",
        year: str = "2017",
        use_crowded: bool = False,
        return_area: bool = False,
        return_crowded: bool = False,
    ) -> None:
        if split not in ("train", "val"):
            raise ValueError(
                f"{type(self).__name__}: split must be 'train' or 'val', got {split!r}"
            )
        super().__init__(data_dir, split, year, use_crowded, mode="person_keypoints")
        self.add_getter(("point", "visible"), self._get_points)
        self.keys = select_keys(
            ("img", "point", "visible", "bbox", "label"),
            area=return_area,
            crowded=return_crowded,
        )

    def _get_points(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        annos = self.id_to_anno[self.ids[i]]
        annos = [a for a, k in zip(annos, self._keep(annos), strict=True) if k]
        n_points = len(coco_keypoint_names)
        raw = np.zeros((len(annos), n_points * 3), dtype=np.float32)
        for r, anno in enumerate(annos):
            values = anno.get("keypoints", [0] * (n_points * 3))
            if len(values) != n_points * 3:
                raise ValueError(
                    f"{type(self).__name__}: annotation {anno.get('id')} has "
                    f"{len(values)} keypoint values, expected {n_points * 3} "
                    "(x, y, v per keypoint)"
                )
            raw[r] = values
        x, y, v = raw[:, 0::3], raw[:, 1::3], raw[:, 2::3]
        # v: 0 not labeled, 1 labeled but occluded, 2 labeled and visible.
        return np.stack((y, x), axis=2), v > 0
