"""Convolution, batch normalization, activation."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import kusari
import kusari.functions as F
import kusari.links as L


def batch_normalization_link(size: int, bn_kwargs: dict[str, Any]) -> kusari.Link:
    """A batch normalization link for ``size`` channels.

    With ``'comm'`` in ``bn_kwargs`` (a kusari-mn communicator), the
    statistics are shared across workers through
    ``kusari_mn.links.MultiNodeBatchNormalization``, as ChainerCV does with
    ChainerMN; otherwise this is :class:`~kusari.links.BatchNormalization`.
    """
    if "comm" not in bn_kwargs:
        return L.BatchNormalization(size, **bn_kwargs)
    try:
        # Optional dependency: only users who pass a communicator need it.
        mn_links = importlib.import_module("kusari_mn.links")
    except ImportError as e:
        raise ImportError(
            "batch normalization with bn_kwargs['comm'] needs kusari-mn "
            "(pip install kusari-mn)"
        ) from e
    return mn_links.MultiNodeBatchNormalization(size, **bn_kwargs)


class Conv2DBNActiv(kusari.Chain):
    """Convolution, then batch normalization, then an activation.

    The arguments are those of :class:`~kusari.links.Convolution2D` plus
    ``activ`` and ``bn_kwargs``; ``in_channels`` may be left out as there.
    The child links are ``conv`` and ``bn`` (ChainerCV's names, so its
    weight files load).

    Args:
        in_channels: Input channels, or None to infer them.
        out_channels: Output channels.
        ksize: Kernel size.
        stride: Stride.
        pad: Zero padding.
        dilate: Dilation factor.
        groups: Number of channel groups.
        nobias: Leave out the convolution's bias (the default: batch
            normalization has its own shift).
        initialW: Initializer for the kernel.
        initial_bias: Initializer for the bias.
        activ: Activation; None for none.
        bn_kwargs: Keyword arguments of the batch normalization link
            (``decay``, ``eps``, ``comm`` for a multi-node one, ...).

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import Conv2DBNActiv
        >>> link = Conv2DBNActiv(3, 8, 3, 2, 1)
        >>> link(np.zeros((2, 3, 8, 8), np.float32)).shape
        (2, 8, 4, 4)
    """

    def __init__(
        self,
        in_channels: int | None,
        out_channels: Any,
        ksize: Any = None,
        stride: Any = 1,
        pad: Any = 0,
        dilate: Any = 1,
        groups: int = 1,
        nobias: bool = True,
        initialW: Any = None,
        initial_bias: Any = None,
        activ: Callable[[Any], Any] | None = F.relu,
        bn_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        super().__init__()
        self.activ = activ
        with self.init_scope():
            self.conv = L.Convolution2D(
                in_channels,
                out_channels,
                ksize,
                stride,
                pad,
                nobias,
                initialW,
                initial_bias,
                dilate=dilate,
                groups=groups,
            )
            self.bn = batch_normalization_link(out_channels, dict(bn_kwargs or {}))

    def forward(self, x: Any) -> Any:
        """Convolution, normalization and activation of ``x``."""
        h = self.bn(self.conv(x))
        if self.activ is None:
            return h
        return self.activ(h)
