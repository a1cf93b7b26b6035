"""Memory layouts under Chainer's names (``chainer.memory_layouts``).

kusari stores every array in the standard layout (channels first: NCHW for
images, OIHW for filters), which Chainer calls ``CUDNN_CHANNEL_FIRST_*`` and
spells ``None``. The channel-last names exist so code that mentions them
imports; shapes can be converted between the two for arrays.

Example:
    >>> import numpy as np
    >>> from kusari import memory_layouts as ml
    >>> x = np.zeros((2, 5, 6, 3))          # N, H, W, C stored channel-last
    >>> ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X)
    (2, 3, 5, 6)
"""

from __future__ import annotations

from typing import Any

CUDNN_CHANNEL_FIRST_X = None
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"
CUDNN_CHANNEL_FIRST_W = None
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"

_UNSPECIFIED: Any = object()
_CHANNEL_LAST = (CUDNN_CHANNEL_LAST_X, CUDNN_CHANNEL_LAST_W)


def get_raw_shape(arr_or_var: Any) -> tuple[int, ...]:
    """The shape as stored in memory."""
    return tuple(getattr(arr_or_var, "array", arr_or_var).shape)


def get_semantic_shape(
    arr_or_var: Any, *, assumed_layout: Any = _UNSPECIFIED
) -> tuple[int, ...]:
    """The shape in the standard (channels-first) order.

    Args:
        arr_or_var: An array or Variable.
        assumed_layout: The layout the array is stored in; a channel-last one
            moves the last axis to position 1.
    """
    shape = get_raw_shape(arr_or_var)
    if assumed_layout is _UNSPECIFIED or assumed_layout is None:
        return shape
    if assumed_layout not in _CHANNEL_LAST:
        raise ValueError(f"memory_layouts: unknown layout {assumed_layout!r}")
    if len(shape) < 3:
        raise ValueError(
            f"memory_layouts: a channel-last layout needs 3+ axes, got {shape}"
        )
    return (shape[0], shape[-1], *shape[1:-1])
