"""SE-ResNet-50/101/152 (Hu et al., "Squeeze-and-Excitation Networks")."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.initializers as I
import kusari.links as L
from kusari_cv import utils
from kusari_cv.links.connection import Conv2DBNActiv
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain
from kusari_cv.links.model.resnet.resblock import ResBlock
from kusari_cv.links.model.resnet.resnet import (
    global_average_pooling,
    max_pooling_3x3s2,
)

# RGB mean of the ImageNet mean image distributed with the original ResNets,
# which the SENet authors' released weights also expect.
_imagenet_mean = np.array([123.15163084, 115.90288257, 103.0626238], dtype=np.float32)[
    :, np.newaxis, np.newaxis
]

_URL = "https://chainercv-models.preferred.jp/"


def _preset(file: str) -> dict[str, Any]:
    return {
        "param": {"n_class": 1000, "mean": _imagenet_mean},
        "overwritable": ("mean",),
        "url": _URL + file,
    }


def build_se_trunk(
    chain: PickableSequentialChain,
    blocks: tuple[int, ...],
    mid_channels: tuple[int, ...],
    n_class: int,
    initialW: Any,
    fc_kwargs: dict[str, Any],
    pretrained: bool,
    **block_kwargs: Any,
) -> None:
    """Registers the layers shared by the SE networks on ``chain``.

    ``conv1``, ``pool1``, ``res2`` ... ``res5`` (bottlenecks with SE blocks),
    ``pool5``, ``fc6`` and ``prob``, in that order.
    """
    fc_kwargs = dict(fc_kwargs)
    if initialW is None:
        initialW = I.HeNormal(scale=1.0, fan_option="fan_out")
    fc_kwargs.setdefault("initialW", I.Normal(scale=0.01))
    if pretrained:
        # The weights are overwritten anyway; skip the costly sampling.
        initialW = I.Zero()
        fc_kwargs["initialW"] = I.Zero()
    kwargs = {"initialW": initialW, "add_seblock": True, **block_kwargs}
    out_channels = (256, 512, 1024, 2048)
    strides = (1, 2, 2, 2)
    with chain.init_scope():
        chain.conv1 = Conv2DBNActiv(None, 64, 7, 2, 3, nobias=True, initialW=initialW)
        chain.pool1 = max_pooling_3x3s2
        for i in range(4):
            stage = ResBlock(
                blocks[i], None, mid_channels[i], out_channels[i], strides[i], **kwargs
            )
            setattr(chain, f"res{i + 2}", stage)
        chain.pool5 = global_average_pooling
        chain.fc6 = L.Linear(None, n_class, **fc_kwargs)
        chain.prob = F.softmax


class SEResNet(PickableSequentialChain):
    """ResNet with a squeeze-and-excitation block in every bottleneck.

    Layers and :attr:`pick` as in :class:`~kusari_cv.links.model.resnet.ResNet`
    (``conv1``, ``pool1``, ``res2`` ... ``res5``, ``pool5``, ``fc6``,
    ``prob``); the stride sits in each stage's first 1x1 convolution.

    Args:
        n_layer: 50, 101 or 152.
        n_class: Number of classes; the preset's (or 1000) when None.
        pretrained_model: ``'imagenet'`` (weights converted from the SENet
            authors' release), an ``.npz`` path, or None.
        mean: Mean image ``(3, 1, 1)``; the preset's when None.
        initialW: Initializer of the convolution kernels.
        fc_kwargs: Keyword arguments of the final Linear.
    """

    _blocks = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

    _models: dict[int, dict[str, Any]] = {
        50: {"imagenet": _preset("se_resnet50_imagenet_converted_2018_06_25.npz")},
        101: {"imagenet": _preset("se_resnet101_imagenet_converted_2018_06_25.npz")},
        152: {"imagenet": _preset("se_resnet152_imagenet_converted_2018_06_25.npz")},
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
            (64, 128, 256, 512),
            param["n_class"],
            initialW,
            fc_kwargs or {},
            bool(pretrained_model),
            stride_first=True,
        )
        if path:
            kusari.serializers.load_npz(path, self)


class SEResNet50(SEResNet):
    """SE-ResNet-50; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(50, n_class, pretrained_model, mean, initialW, fc_kwargs)


class SEResNet101(SEResNet):
    """SE-ResNet-101; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(101, n_class, pretrained_model, mean, initialW, fc_kwargs)


class SEResNet152(SEResNet):
    """SE-ResNet-152; see :class:`SEResNet`."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(152, n_class, pretrained_model, mean, initialW, fc_kwargs)
