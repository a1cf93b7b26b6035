"""What Conv2DActiv, Conv2DBNActiv and TFConv2DBNActiv have in common."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import kusari
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


class ConvBlock(kusari.Chain):
    """A convolution (child ``conv``), an optional batch normalization
    (child ``bn``) and an activation.

    Args:
        conv_class: The convolution link, called as ``Convolution2D`` is:
            ``(in_channels, out_channels, ksize, stride, pad, nobias,
            initialW, initial_bias, dilate=, groups=)``.
        bn_kwargs: Keyword arguments of the batch normalization link; None
            for no batch normalization.

    The other arguments are those of the convolution and ``activ``;
    ``in_channels`` may be left out (``ksize`` None) as in
    :class:`~kusari.links.Convolution2D`.
    """

    def __init__(
        self,
        conv_class: Callable[..., kusari.Link],
        in_channels: int | None,
        out_channels: Any,
        ksize: Any,
        stride: Any,
        pad: Any,
        dilate: Any,
        groups: int,
        nobias: bool,
        initialW: Any,
        initial_bias: Any,
        activ: Callable[[Any], Any] | None,
        bn_kwargs: dict[str, Any] | None,
    ) -> None:
        if ksize is None:
            out_channels, ksize, in_channels = in_channels, out_channels, None
        super().__init__()
        self.activ = activ
        self._with_bn = bn_kwargs is not None
        with self.init_scope():
            self.conv = conv_class(
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
            if self._with_bn:
                self.bn = batch_normalization_link(out_channels, dict(bn_kwargs or {}))

    def forward(self, x: Any) -> Any:
        """Convolves ``x``, normalizes it (where there is a ``bn``) and
        applies the activation."""
        h = self.conv(x)
        if self._with_bn:
            h = self.bn(h)
        if self.activ is None:
            return h
        return self.activ(h)
