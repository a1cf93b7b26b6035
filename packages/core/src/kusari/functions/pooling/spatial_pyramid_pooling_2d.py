"""``spatial_pyramid_pooling_2d``: concatenated max pooling at 1, 2, 4, ... bins."""

from __future__ import annotations

import math
from typing import Any

from kusari.functions.pooling.max_pooling_nd import MaxPoolingND
from kusari.variable import Variable


def spatial_pyramid_pooling_2d(
    x: Any, pyramid_height: int, pooling: Any = None
) -> Variable:
    """Spatial pyramid pooling.

    Level ``l`` max-pools ``x`` into ``2**l x 2**l`` bins (window ``ceil(h /
    2**l)``, padding split evenly); the results are flattened and
    concatenated along the channel axis.

    Args:
        x: Input of shape ``(n, c, h, w)``.
        pyramid_height: Number of pyramid levels.
        pooling: ``'max'``, the only pooling there is; as in Chainer 7 it
            must be given (None raises ``ValueError``).

    Returns:
        Variable of shape ``(n, c * sum_l 4**l, 1, 1)``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.ones((2, 3, 8, 8), np.float32)
        >>> F.spatial_pyramid_pooling_2d(x, 3, pooling="max").shape
        (2, 63, 1, 1)
    """
    from kusari.functions.array.concat import concat
    from kusari.functions.array.reshape import reshape

    if pooling is None:
        raise ValueError(
            "spatial_pyramid_pooling_2d: pooling must be given; the only "
            "supported pooling is 'max' (pooling='max')"
        )
    if pooling != "max":
        raise ValueError(
            f"spatial_pyramid_pooling_2d: pooling must be 'max', got {pooling!r}"
        )
    if not isinstance(pyramid_height, int) or pyramid_height <= 0:
        raise ValueError(
            f"spatial_pyramid_pooling_2d: pyramid_height must be a positive "
            f"int, got {pyramid_height!r}"
        )
    if len(x.shape) != 4:
        raise ValueError(
            f"spatial_pyramid_pooling_2d: x must be 4-dimensional, got shape "
            f"{tuple(x.shape)}"
        )
    n, c, h, w = x.shape
    ys = []
    for level in range(pyramid_height):
        bins = 2**level
        kh, kw = int(math.ceil(h / bins)), int(math.ceil(w / bins))
        pad = ((kh * bins - h) // 2, (kw * bins - w) // 2)
        (y,) = MaxPoolingND(
            2, (kh, kw), None, pad, True, fname="spatial_pyramid_pooling_2d"
        ).apply((x,))
        ys.append(reshape(y, (n, -1, 1, 1)))
    return concat(ys, axis=1) if len(ys) > 1 else ys[0]
