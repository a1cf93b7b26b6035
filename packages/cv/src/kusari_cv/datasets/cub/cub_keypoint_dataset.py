"""CUB-200-2011 with part locations (keypoints)."""

from __future__ import annotations

import os

import numpy as np
from PIL import Image

from kusari_cv.datasets._common import read_lines, select_keys
from kusari_cv.datasets.cub.cub_utils import CUBDatasetBase

#: Number of annotated parts per bird.
_N_PARTS = 15


class CUBKeypointDataset(CUBDatasetBase):
    """Caltech-UCSD Birds-200-2011 with the 15 annotated part locations.

    Reads ``parts/part_locs.txt`` (``<image id> <part id> <x> <y>
    <visible>``) besides the files :class:`CUBLabelDataset` reads. Points
    that fall outside the image are marked not visible.

    Args:
        data_dir: The ``CUB_200_2011`` folder, or ``'auto'``.
        return_bbox: Also return the bird's bounding box.
        prob_map_dir: The ``segmentations`` folder, or ``'auto'``.
        return_prob_map: Also return the bird's probability map.

    ========================  ===========  =======  ==========================
    key                       shape        dtype    format
    ========================  ===========  =======  ==========================
    ``img``                   (3, H, W)    float32  RGB, [0, 255]
    ``point``                 (1, 15, 2)   float32  (y, x)
    ``visible``               (1, 15)      bool     --
    ``bbox`` (option)         (1, 4)       float32  (y_min, x_min, y_max,
                                                    x_max)
    ``prob_map`` (option)     (H, W)       float32  [0, 1]
    ========================  ===========  =======  ==========================
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
        index = {image_id: r for r, image_id in enumerate(self.image_ids)}
        self._points = np.zeros((len(index), _N_PARTS, 2), dtype=np.float32)
        self._visible = np.zeros((len(index), _N_PARTS), dtype=bool)
        path = os.path.join(self.data_dir, "parts", "part_locs.txt")
        for line in read_lines(path, owner, "the part locations"):
            fields = line.split()
            if len(fields) != 5 or fields[0] not in index:
                raise ValueError(
                    f"{owner}: each line of {path!r} must be '<image id> <part "
                    f"id> <x> <y> <visible>' with a known image id, got {line!r}"
                )
            r, part = index[fields[0]], int(fields[1]) - 1
            if not 0 <= part < _N_PARTS:
                raise ValueError(
                    f"{owner}: part id {part + 1} in {path!r} is not in 1..{_N_PARTS}"
                )
            self._points[r, part] = (float(fields[3]), float(fields[2]))  # (y, x)
            self._visible[r, part] = bool(int(fields[4]))

        self.add_getter("img", self._get_image)
        self.add_getter(("point", "visible"), self._get_points)
        self.keys = select_keys(
            ("img", "point", "visible"), bbox=return_bbox, prob_map=return_prob_map
        )

    def _get_points(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        point = self._points[i].copy()
        visible = self._visible[i].copy()
        # Only the image header is read: the size, without decoding pixels.
        with Image.open(self._image_path(i)) as img:
            width, height = img.size
        inside = (
            (point[:, 0] >= 0)
            & (point[:, 1] >= 0)
            & (point[:, 0] <= height)
            & (point[:, 1] <= width)
        )
        visible &= inside
        return point[None], visible[None]
