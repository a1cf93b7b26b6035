"""CUB-200-2011 with class labels."""

from __future__ import annotations

import os

import numpy as np

from kusari_cv.datasets._common import select_keys
from kusari_cv.datasets.cub.cub_utils import CUBDatasetBase, _parse_table


class CUBLabelDataset(CUBDatasetBase):
    """Caltech-UCSD Birds-200-2011 with class labels (200 species).

    Reads ``images.txt``, ``bounding_boxes.txt``, ``image_class_labels.txt``
    and ``images/<path>`` of the ``CUB_200_2011`` folder.

    Args:
        data_dir: The ``CUB_200_2011`` folder, or ``'auto'``.
        return_bbox: Also return the bird's bounding box.
        prob_map_dir: The ``segmentations`` folder, or ``'auto'``.
        return_prob_map: Also return the bird's probability map.

    ========================  =========  =======  ============================
    key                       shape      dtype    format
    ========================  =========  =======  ============================
    ``img``                   (3, H, W)  float32  RGB, [0, 255]
    ``label``                 ()         int32    [0, #class - 1]
    ``bbox`` (option)         (1, 4)     float32  (y_min, x_min, y_max, x_max)
    ``prob_map`` (option)     (H, W)     float32  [0, 1]
    ========================  =========  =======  ============================
    """

    def __init__(
        self,
        data_dir: str = "auto",
        return_bbox: bool = False,
        prob_map_dir: str = "auto",
        return_prob_map: bool = False,
    ) -> None:
        super().__init__(data_dir, prob_map_dir, return_prob_map)
        owner = type(self).__name__
        path = os.path.join(self.data_dir, "image_class_labels.txt")
        table = _parse_table(path, owner, "the labels image_class_labels.txt", 1)
        labels = []
        for image_id in self.image_ids:
            if image_id not in table:
                raise ValueError(
                    f"{owner}: image id {image_id} of images.txt has no line in "
                    f"{path!r}"
                )
            labels.append(int(table[image_id][0]) - 1)  # class ids start at 1
        self._labels = np.array(labels, dtype=np.int32)

        self.add_getter("img", self._get_image)
        self.add_getter("label", self._get_label)
        self.keys = select_keys(
            ("img", "label"), bbox=return_bbox, prob_map=return_prob_map
        )

    def _get_label(self, i: int) -> np.int32:
        return self._labels[i]
