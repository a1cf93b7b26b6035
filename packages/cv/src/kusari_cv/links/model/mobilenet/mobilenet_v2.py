"""MobileNetV2 (Sandler et al. 2018) with weights converted from TensorFlow."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.initializers as I
from kusari_cv import utils
from kusari_cv.links.model.mobilenet.expanded_conv_2d import ExpandedConv2D
from kusari_cv.links.model.mobilenet.tf_conv_2d_bn_activ import TFConv2DBNActiv
from kusari_cv.links.model.mobilenet.tf_convolution_2d import TFConvolution2D
from kusari_cv.links.model.mobilenet.util import _make_divisible, expand_input_by_factor
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain

# The converted TensorFlow weights expect inputs centred on 128 (their first
# convolution absorbed the rest of TensorFlow's input scaling).
_tf_mean = np.full((3, 1, 1), 128, dtype=np.float32)
# RGB ImageNet mean, for models trained here from scratch.
_imagenet_mean = np.array([123.68, 116.779, 103.939], dtype=np.float32)[
    :, np.newaxis, np.newaxis
]

# TensorFlow-slim's batch normalization defaults, which the weights used.
_bn_tf_default_params: dict[str, Any] = {"decay": 0.999, "eps": 0.001}

# Output channels of expanded_conv_1 ... expanded_conv_16 at multiplier 1,
# and the blocks whose depthwise convolution has stride 2.
_block_channels = (24,) * 2 + (32,) * 3 + (64,) * 4 + (96,) * 3 + (160,) * 3 + (320,)
_stride2_blocks = frozenset({1, 3, 6, 13})


def _tf_preset(multiplier: str) -> dict[str, Any]:
    return {
        "param": {"n_class": 1001, "mean": _tf_mean},  # class 0 is background
        "overwritable": ("mean",),
        "url": "https://chainercv-models.preferred.jp/mobilenet_v2_depth_multiplier_"
        f"{multiplier}_imagenet_converted_2019_05_13.npz",
    }


def _multiplied_channels(channels: int, depth_multiplier: float) -> int:
    return _make_divisible(channels * depth_multiplier, 8, 8)


def global_average_pool(x: Any) -> Any:
    """Average over the spatial axes, keeping them: ``(B, C, 1, 1)``."""
    return F.average(x, axis=(2, 3), keepdims=True)


def squeeze_spatial(x: Any) -> Any:
    """``(B, C, 1, 1)`` to ``(B, C)``."""
    return F.squeeze(x, axis=(2, 3))


class MobileNetV2(PickableSequentialChain):
    """MobileNetV2 classifier; pick any of its layers as features.

    Layers, in order: ``conv`` (stride 2), ``expanded_conv`` and
    ``expanded_conv_1`` ... ``expanded_conv_16`` (inverted residual blocks;
    1, 3, 6 and 13 have stride 2), ``conv1`` (1x1 to 1280 channels),
    ``global_average_pool``, ``logits_conv`` (1x1 convolution with bias),
    ``squeeze`` (to ``(B, n_class)``) and ``softmax`` (the default output).
    All convolutions pad as TensorFlow's ``'SAME'`` and use ReLU6, so the
    converted TensorFlow weights give TensorFlow's outputs.

    Args:
        n_class: Number of classes; the preset's (1001: background first,
            then ImageNet's 1000) or 1000 when None.
        pretrained_model: ``'imagenet'`` for the weights converted from
            TensorFlow (depth multipliers 1.0 and 1.4), a path to an ``.npz``
            file in ChainerCV's layout, or None.
        mean: Mean image ``(3, 1, 1)`` subtracted by prediction wrappers;
            the preset's (128) when None, ImageNet's RGB mean without one.
        initialW: Initializer of the convolution kernels.
        initial_bias: Initializer of the logits' bias.
        arch: ``'tf'`` (TensorFlow's layout, the only one).
        depth_multiplier: Width factor of every layer (channel counts are
            rounded to multiples of 8; ``conv1`` never goes below 1280).
        bn_kwargs: Keyword arguments of the batch normalization links;
            TensorFlow-slim's (``decay=0.999, eps=0.001``) when None.
        thousand_categories_mode: With 1001 classes, drop the background
            class after loading so the output has ImageNet's 1000.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import MobileNetV2
        >>> model = MobileNetV2(n_class=10)
        >>> model.pick = ('expanded_conv_5', 'conv1')
        >>> [h.shape for h in model(np.zeros((1, 3, 64, 64), np.float32))]
        [(1, 32, 8, 8), (1, 1280, 2, 2)]
    """

    _models: dict[str, dict[float, dict[str, dict[str, Any]]]] = {
        "tf": {
            1.0: {"imagenet": _tf_preset("1.0")},
            1.4: {"imagenet": _tf_preset("1.4")},
        }
    }

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
        arch: str = "tf",
        depth_multiplier: float = 1.0,
        bn_kwargs: dict[str, Any] | None = None,
        thousand_categories_mode: bool = False,
    ) -> None:
        name = type(self).__name__
        if arch not in self._models:
            raise ValueError(f"{name}: arch must be 'tf', got {arch!r}")
        if not depth_multiplier > 0:
            raise ValueError(
                f"{name}: depth_multiplier must be positive, got {depth_multiplier}"
            )
        models = self._models[arch].get(float(depth_multiplier), {})
        known = {key for table in self._models[arch].values() for key in table}
        if pretrained_model in known and pretrained_model not in models:
            # Otherwise the preset name would be taken as a file path.
            multipliers = ", ".join(str(m) for m in self._models[arch])
            raise ValueError(
                f"{name}: pretrained weights {pretrained_model!r} exist for "
                f"depth_multiplier {multipliers} only, got {depth_multiplier}"
            )
        param, path = utils.prepare_pretrained_model(
            {"n_class": n_class, "mean": mean},
            pretrained_model,
            models,
            {"n_class": 1000, "mean": _imagenet_mean},
        )
        if bn_kwargs is None:
            bn_kwargs = _bn_tf_default_params
        if pretrained_model:
            # The weights are overwritten anyway; skip the sampling.
            initialW = I.Zero()

        super().__init__()
        self.mean = param["mean"]
        self.n_class: int = param["n_class"]
        conv_channels = _multiplied_channels(32, depth_multiplier)
        in_channels = _multiplied_channels(16, depth_multiplier)
        with self.init_scope():
            self.conv = TFConv2DBNActiv(
                3,
                conv_channels,
                ksize=3,
                stride=2,
                nobias=True,
                initialW=initialW,
                activ=F.relu6,
                bn_kwargs=bn_kwargs,
            )
            # The first block does not expand (factor 1).
            self.expanded_conv = ExpandedConv2D(
                conv_channels,
                in_channels,
                expansion_size=expand_input_by_factor(1, divisible_by=1),
                initialW=initialW,
                bn_kwargs=bn_kwargs,
            )
            for i, channels in enumerate(_block_channels, 1):
                out_channels = _multiplied_channels(channels, depth_multiplier)
                block = ExpandedConv2D(
                    in_channels,
                    out_channels,
                    depthwise_stride=2 if i in _stride2_blocks else 1,
                    initialW=initialW,
                    bn_kwargs=bn_kwargs,
                )
                setattr(self, f"expanded_conv_{i}", block)
                in_channels = out_channels
            # TensorFlow keeps the last layer at 1280 channels for thinner
            # networks and widens it only for multipliers above 1.
            conv1_channels = (
                1280
                if depth_multiplier < 1
                else _multiplied_channels(1280, depth_multiplier)
            )
            self.conv1 = TFConv2DBNActiv(
                in_channels,
                conv1_channels,
                ksize=1,
                nobias=True,
                initialW=initialW,
                activ=F.relu6,
                bn_kwargs=bn_kwargs,
            )
            self.global_average_pool = global_average_pool
            self.logits_conv = TFConvolution2D(
                conv1_channels,
                self.n_class,
                ksize=1,
                nobias=False,
                initialW=initialW,
                initial_bias=initial_bias,
            )
            self.squeeze = squeeze_spatial
            self.softmax = F.softmax

        if path:
            kusari.serializers.load_npz(path, self)

        if thousand_categories_mode and self.n_class > 1000:
            self._drop_background_class()

    def _drop_background_class(self) -> None:
        # TensorFlow's ImageNet models put a background class first.
        conv = self.logits_conv.conv
        xp = self.xp
        conv.W.array = xp.ascontiguousarray(conv.W.array[1:])
        conv.W.cleargrad()
        if conv.b is not None:
            conv.b.array = xp.ascontiguousarray(conv.b.array[1:])
            conv.b.cleargrad()
        conv.out_channels -= 1
        self.n_class -= 1
