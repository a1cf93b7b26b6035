"""SE-ResNeXt-50/101: grouped-convolution ResNets with SE blocks."""

from __future__ import annotations

from typing import Any

import kusari
from kusari_cv import utils
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain
from kusari_cv.links.model.senet.se_resnet import (
    _imagenet_mean,
    _preset,
    build_se_trunk,
)


class SEResNeXt(PickableSequentialChain):
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

    def __init__(
        self,
        n_layer: int,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        if n_layer not in self._blocks:
            raise ValueError(
                f"{type(self).__name__}: n_layer must be one of "
                f"{sorted(self._blocks)}, got {n_layer}"
            )
        param, path = utils.prepare_pretrained_model(
            {"n_class": n_class, "mean": mean},
            pretrained_model,
            self._models[n_layer],
            {"n_class": 1000, "mean": _imagenet_mean},
        )
        super().__init__()
        self.mean = param["mean"]
        build_se_trunk(
            self,
            self._blocks[n_layer],
            (128, 256, 512, 1024),
            param["n_class"],
            initialW,
            fc_kwargs or {},
            bool(pretrained_model),
            groups=32,
            stride_first=False,
        )
        if path:
            kusari.serializers.load_npz(path, self)


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
