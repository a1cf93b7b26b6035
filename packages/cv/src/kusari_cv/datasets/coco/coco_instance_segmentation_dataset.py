"""MS COCO instance segmentation."""

from __future__ import annotations

from kusari_cv.datasets._common import select_keys
from kusari_cv.datasets.coco.coco_instances_base_dataset import (
    COCOInstancesBaseDataset,
)


class COCOInstanceSegmentationDataset(COCOInstancesBaseDataset):
    """Instance segmentation dataset for MS COCO.

    Polygons and RLE masks (list or compressed counts) are decoded without
    pycocotools. Arguments as :class:`COCOBboxDataset`, plus ``return_bbox``.

    ========================  ============  =======  =========================
    key                       shape         dtype    format
    ========================  ============  =======  =========================
    ``img``                   (3, H, W)     float32  RGB, [0, 255]
    ``mask``                  (R, H, W)     bool     --
    ``label``                 (R,)          int32    [0, #fg_class - 1]
    ``area`` (option)         (R,)          float32  --
    ``crowded`` (option)      (R,)          bool     --
    ``bbox`` (option)         (R, 4)        float32  (y_min, x_min, y_max,
                                                     x_max)
    ========================  ============  =======  =========================
    """

    def __init__(
        self,
        data_dir: str = "auto",
        split: str = "train",
        year: str = "2017",
        use_crowded: bool = False,
        return_crowded: bool = False,
        return_area: bool = False,
        return_bbox: bool = False,
    ) -> None:
        super().__init__(data_dir, split, year, use_crowded)
        self.keys = select_keys(
            ("img", "mask", "label"),
            area=return_area,
            crowded=return_crowded,
            bbox=return_bbox,
        )
