"""ResNet-50/101/152 classifiers (He et al. 2016) as pickable chains."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

# Channel-wise mean (RGB) of the ImageNet mean image that comes with
# Kaiming He's released ResNets; the pretrained weights expect it.
_imagenet_mean = np.array([123.15163084, 115.90288257, 103.0626238], dtype=np.float32)[
    :, np.newaxis, np.newaxis
]

_URL = "https://chainercv-models.preferred.jp/"


def max_pooling_3x3s2(x: Any) -> Any:
    """The stem's 3x3, stride-2 max pooling."""
    return F.max_pooling_2d(x, ksize=3, stride=2)


def global_average_pooling(x: Any) -> Any:
    """Average over the spatial axes: ``(B, C, H, W)`` to ``(B, C)``."""
    return F.average(x, axis=(2, 3))


def _preset(file: str, **extra: Any) -> dict[str, Any]:
    return {
        "param": {"n_class": 1000, "mean": _imagenet_mean},
        "overwritable": ("mean",),
        "url": _URL + file,
        **extra,
    }


def build_classifier(
    chain: PickableSequentialChain,
    n_layer: int,
    blocks: Mapping[int, Sequence[int]],
    models: Mapping[int, dict[str, Any]],
    mid_channels: tuple[int, ...],
    n_class: int | None,
    pretrained_model: str | None,
    mean: Any,
    initialW: Any,
    fc_kwargs: dict[str, Any] | None,
    conv1_nobias: bool = True,
    **block_kwargs: Any,
) -> None:
    """Builds an ImageNet ResNet-style classifier on the empty ``chain``.

    Checks ``n_layer`` against ``blocks`` (the bottlenecks per stage of each
    depth), resolves ``n_class``, ``mean`` and the weights from
    ``models[n_layer]`` (see :func:`~kusari_cv.utils.prepare_pretrained_model`),
    registers ``conv1``, ``pool1``, ``res2`` ... ``res5`` (:class:`ResBlock`
    stages with 256, 512, 1024 and 2048 output channels, strides 1, 2, 2, 2,
    built with ``block_kwargs``), ``pool5``, ``fc6`` and ``prob`` in that
    order, then loads the weights.
    """
    if n_layer not in blocks:
        raise ValueError(
            f"{type(chain).__name__}: n_layer must be one of "
            f"{sorted(blocks)}, got {n_layer}"
        )
    param, path = utils.prepare_pretrained_model(
        {"n_class": n_class, "mean": mean},
        pretrained_model,
        models[n_layer],
        {"n_class": 1000, "mean": _imagenet_mean},
    )
    chain.mean = param["mean"]
    fc_kwargs = dict(fc_kwargs or {})
    if initialW is None:
        initialW = I.HeNormal(scale=1.0, fan_option="fan_out")
    fc_kwargs.setdefault("initialW", I.Normal(scale=0.01))
    if pretrained_model:
        # The weights are overwritten anyway; skip the costly sampling.
        initialW = I.Zero()
        fc_kwargs["initialW"] = I.Zero()
    kwargs = {"initialW": initialW, **block_kwargs}
    out_channels = (256, 512, 1024, 2048)
    strides = (1, 2, 2, 2)
    with chain.init_scope():
        chain.conv1 = Conv2DBNActiv(
            None, 64, 7, 2, 3, nobias=conv1_nobias, initialW=initialW
        )
        chain.pool1 = max_pooling_3x3s2
        for i in range(4):
            stage = ResBlock(
                blocks[n_layer][i],
                None,
                mid_channels[i],
                out_channels[i],
                strides[i],
                **kwargs,
            )
            setattr(chain, f"res{i + 2}", stage)
        chain.pool5 = global_average_pooling
        chain.fc6 = L.Linear(None, param["n_class"], **fc_kwargs)
        chain.prob = F.softmax
    if path:
        kusari.serializers.load_npz(path, chain)


class ResNet(PickableSequentialChain):
    """ResNet classifier; pick any of its stages as features.

    Layers, in order: ``conv1``, ``pool1``, ``res2`` ... ``res5``,
    ``pool5`` (global average), ``fc6`` (logits) and ``prob`` (softmax, the
    default output). Setting :attr:`pick` returns intermediate layers, e.g.
    ``model.pick = ('res4', 'res5')``.

    Args:
        n_layer: 50, 101 or 152.
        n_class: Number of classes; the preset's (or 1000) when None.
        pretrained_model: ``'imagenet'`` to download ChainerCV's weights, a
            path to an ``.npz`` file in ChainerCV's layout, or None.
        mean: Mean image (``(3, 1, 1)``) subtracted by prediction wrappers;
            the preset's when None.
        initialW: Initializer of the convolution kernels (He normal, fan-out,
            by default).
        fc_kwargs: Keyword arguments of the final :class:`~kusari.links.Linear`.
        arch: ``'fb'`` (stride in the 3x3 convolutions, as in Facebook's
            implementation) or ``'he'`` (stride in the first 1x1, as in the
            original paper).
    """

    _blocks = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3)}

    _models: dict[str, dict[int, dict[str, Any]]] = {
        "fb": {
            50: {
                "imagenet": _preset(
                    "resnet50_imagenet_trained_2018_11_26.npz", cv2=True
                )
            },
            101: {
                "imagenet": _preset(
                    "resnet101_imagenet_trained_2018_11_26.npz", cv2=True
                )
            },
            152: {
                "imagenet": _preset(
                    "resnet152_imagenet_trained_2018_11_26.npz", cv2=True
                )
            },
        },
        "he": {
            50: {"imagenet": _preset("resnet50_imagenet_converted_2018_03_07.npz")},
            101: {"imagenet": _preset("resnet101_imagenet_converted_2018_03_07.npz")},
            152: {"imagenet": _preset("resnet152_imagenet_converted_2018_03_07.npz")},
        },
    }

    def __init__(
        self,
        n_layer: int,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
        arch: str = "fb",
    ) -> None:
        if arch not in ("fb", "he"):
            raise ValueError(
                f"{type(self).__name__}: arch must be 'fb' or 'he', got {arch!r}"
            )
        super().__init__()
        # "fb" puts the stride in the 3x3 convolutions and has no bias in the
        # stem; Kaiming He's release strides the first 1x1 and has a stem
        # bias in ResNet-50 only, which its converted weights contain.
        build_classifier(
            self,
            n_layer,
            self._blocks,
            self._models[arch],
            (64, 128, 256, 512),
            n_class,
            pretrained_model,
            mean,
            initialW,
            fc_kwargs,
            conv1_nobias=arch == "fb" or n_layer != 50,
            stride_first=arch == "he",
        )


class ResNet50(ResNet):
    """ResNet-50; see :class:`ResNet` for the arguments.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import ResNet50
        >>> model = ResNet50(n_class=10)
        >>> model.pick = 'res3'
        >>> model(np.zeros((1, 3, 64, 64), np.float32)).shape
        (1, 512, 8, 8)
    """

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
        arch: str = "fb",
    ) -> None:
        super().__init__(50, n_class, pretrained_model, mean, initialW, fc_kwargs, arch)


class ResNet101(ResNet):
    """ResNet-101; see :class:`ResNet` for the arguments."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
        arch: str = "fb",
    ) -> None:
        super().__init__(
            101, n_class, pretrained_model, mean, initialW, fc_kwargs, arch
        )


class ResNet152(ResNet):
    """ResNet-152; see :class:`ResNet` for the arguments."""

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        fc_kwargs: dict[str, Any] | None = None,
        arch: str = "fb",
    ) -> None:
        super().__init__(
            152, n_class, pretrained_model, mean, initialW, fc_kwargs, arch
        )
