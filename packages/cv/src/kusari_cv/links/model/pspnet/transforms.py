"""Sliding-window crops for tiled inference."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def convolution_crop(
    img: np.ndarray,
    size: tuple[int, int],
    stride: tuple[int, int],
    return_param: bool = False,
) -> Any:
    """Cuts a CHW image into overlapping ``size`` tiles ``stride`` apart.

    The grid of tiles is centred on the image and covers all of it; the parts
    of border tiles that fall outside the image are zero.

    Args:
        img: A CHW image.
        size: ``(height, width)`` of a tile.
        stride: Vertical and horizontal step between tiles.
        return_param: Also return where each tile came from.

    Returns:
        The tiles ``(N, C, size[0], size[1])``; with ``return_param`` also a
        dict of lists of slices: ``y_slices``/``x_slices`` (the covered part
        of the image) and ``crop_y_slices``/``crop_x_slices`` (the same
        region inside the tile).

    Example:
        >>> import numpy as np
        >>> img = np.ones((3, 5, 7), np.float32)
        >>> tiles, param = convolution_crop(img, (4, 4), (3, 3), return_param=True)
        >>> tiles.shape, param['y_slices'][0], param['crop_y_slices'][0]
        ((4, 3, 4, 4), slice(0, 3, None), slice(1, 4, None))
    """
    _, H, W = img.shape
    n_y = max(math.ceil((H - size[0]) / stride[0]), 0) + 1
    n_x = max(math.ceil((W - size[1]) / stride[1]), 0) + 1
    # The grid may overhang the image; split the overhang between both sides.
    start_y = (H - size[0] - stride[0] * (n_y - 1)) // 2
    start_x = (W - size[1] - stride[1] * (n_x - 1)) // 2

    tiles = np.zeros((n_y * n_x, img.shape[0]) + tuple(size), dtype=img.dtype)
    param: dict[str, list[slice]] = {
        "y_slices": [],
        "x_slices": [],
        "crop_y_slices": [],
        "crop_x_slices": [],
    }
    for i in range(n_y):
        for j in range(n_x):
            y0 = start_y + i * stride[0]
            x0 = start_x + j * stride[1]
            y_slice = slice(max(y0, 0), min(y0 + size[0], H))
            x_slice = slice(max(x0, 0), min(x0 + size[1], W))
            crop_y = slice(y_slice.start - y0, y_slice.stop - y0)
            crop_x = slice(x_slice.start - x0, x_slice.stop - x0)
            tiles[i * n_x + j, :, crop_y, crop_x] = img[:, y_slice, x_slice]
            param["y_slices"].append(y_slice)
            param["x_slices"].append(x_slice)
            param["crop_y_slices"].append(crop_y)
            param["crop_x_slices"].append(crop_x)
    if return_param:
        return tiles, param
    return tiles
