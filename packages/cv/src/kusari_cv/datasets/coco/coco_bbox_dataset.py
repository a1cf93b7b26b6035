"""MS COCO bounding boxes."""

from __future__ import annotations

from kusari_cv.datasets._common import select_keys
from kusari_cv.datasets.coco.coco_instances_base_dataset import (
    COCOInstancesBaseDataset,
)


class COCOBboxDataset(COCOInstancesBaseDataset):
    """Bounding box dataset for MS COCO.

    Reads ``<data_dir>/annotations/instances_<split><year>.json`` and the
    images under ``<data_dir>/images/<train|val><year>/``.

    Args:
        data_dir: The COCO root, or ``'auto'`` to use (and if needed
            download) ``<dataset root>/pfnet/chainercv/coco``.
        split: ``'train'`` or ``'val'``; 2014 also has ``'minival'`` and
            ``'valminusminival'``.
        year: ``'2014'`` or ``'2017'``.
        use_crowded: Keep crowd regions.
        return_area: Also return the objects' mask areas.
        return_crowded: Also return the crowd flags.

    ========================  =========  =======  ============================
    key                       shape      dtype    format
    ========================  =========  =======  ============================
    ``img``                   (3, H, W)  float32  RGB, [0, 255]
    ``bbox``                  (R, 4)     float32  (y_min, x_min, y_max, x_max)
    ``label``                 (R,)       int32    [0, #fg_class - 1]
    ``area`` (option)         (R,)       float32  --
    ``crowded`` (option)      (R,)       bool     --
    ========================  =========  =======  ============================

    Objects whose box has no area are dropped.
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
        super().__init__(data_dir, split, year, use_crowded)
        self.keys = select_keys(
            ("img", "bbox", "label"), area=return_area, crowded=return_crowded
        )
