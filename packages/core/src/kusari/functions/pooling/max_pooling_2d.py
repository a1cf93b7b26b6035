"""2-d max pooling ``max_pooling_2d``."""

from __future__ import annotations

from typing import Any

from kusari.functions.pooling.max_pooling_nd import MaxPoolingND, _max_pool


class MaxPooling2D(MaxPoolingND):
    """2-d max pooling node with Chainer's constructor signature."""

    def __init__(
        self,
        ksize: Any,
        stride: Any = None,
        pad: Any = 0,
        cover_all: bool = True,
        return_indices: bool = False,
    ) -> None:
        super().__init__(
            2, ksize, stride, pad, cover_all, return_indices, fname="max_pooling_2d"
        )


def max_pooling_2d(
    x: Any,
    ksize: Any,
    stride: Any = None,
    pad: Any = 0,
    cover_all: bool = True,
    return_indices: bool = False,
) -> Any:
    """Spatial max pooling of ``x`` ``(n, c, h, w)``.

    Args:
        x: Input variable.
        ksize: Window size ``k`` or ``(k_H, k_W)``.
        stride: Stride; ``ksize`` if None.
        pad: Padding (with ``-inf``) on both sides.
        cover_all: Extend the output so every input pixel is covered.
        return_indices: Also return the flattened in-window argmax (int32).

    Returns:
        The pooled Variable, or ``(y, indexes)`` with ``return_indices``.

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.max_pooling_2d(x, 2).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
    """
    if len(x.shape) != 4:
        raise ValueError(
            f"max_pooling_2d: x must be 4-dimensional (N, C, H, W), got "
            f"shape {tuple(x.shape)}"
        )
    return _max_pool(
        x, 2, ksize, stride, pad, cover_all, return_indices, "max_pooling_2d"
    )
