"""SE-ResNeXt-50/101: grouped-convolution ResNets with SE blocks."""

from __future__ import annotations

from typing import Any

from kusari_cv.links.model.resnet.resnet import _preset
from kusari_cv.links.model.senet.se_resnet import _SENetBase


class SEResNeXt(_SENetBase):
    """ResNeXt (32 groups in each 3x3 convolution) with SE blocks.

    Layers and :attr:`pick` as in :class:`~kusari_cv.links.model.senet.SEResNet`;
    the bottlenecks are twice as wide and stride in their 3x3 convolution.

    Args:
        n_layer: 50 or 101.
        n_class: Number of classes; the preset's (or 1000) when None.
        pretrained_model: ``'imagenet'``, an ``.npz`` path, or None.
        mean: Mean image ``(3, 1, 1)``; the preset's when None.
        initialW: Initializer of the convolution kernels.
        fc_kwargs: Keyword arguments of the final Linear.
    """

    _blocks = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3)}

    _models: dict[int, dict[str, Any]] = {
        50: {"imagenet": _preset("se_resnext50_imagenet_converted_2018_06_28.npz")},
        101: {"imagenet": _preset("se_resnext101_imagenet_converted_2018_06_28.npz")},
    }

    _mid_channels = (128, 256, 512, 1024)
    _block_kwargs: dict[str, Any] = {"groups": 32, "stride_first": False}


class SEResNeXt50(SEResNeXt):
    """SE-ResNeXt-50; see :class:`SEResNeXt`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(50, n_class, pretrained_model, mean, initialW, fc_kwargs)


class SEResNeXt101(SEResNeXt):
    """SE-ResNeXt-101; see :class:`SEResNeXt`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(101, n_class, pretrained_model, mean, initialW, fc_kwargs)
