"""ResNet-50/101/152 (He et al., 2015) with Chainer's layer names."""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

from kusari import initializers, link
from kusari.functions.activation import relu as relu_module
from kusari.functions.activation import softmax as softmax_module
from kusari.functions.array import reshape as reshape_module
from kusari.functions.pooling import average_pooling_2d as avg_pool_module
from kusari.functions.pooling import max_pooling_2d as max_pool_module
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.links.connection.linear import Linear
from kusari.links.model.vision import _common
from kusari.links.normalization.batch_normalization import BatchNormalization

_BLOCKS = {50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 8, 36, 3]}


def _global_average_pooling_2d(x: Any) -> Any:
    n, channel, rows, cols = x.shape
    h = avg_pool_module.average_pooling_2d(x, (rows, cols), stride=1)
    return reshape_module.reshape(h, (n, channel))


def _max_pooling_3x3(x: Any) -> Any:
    return max_pool_module.max_pooling_2d(x, ksize=3, stride=2)


class BottleneckA(link.Chain):
    """Bottleneck that changes the resolution and channels: ``conv1`` (1x1),
    ``conv2`` (3x3), ``conv3`` (1x1) on the main path and ``conv4`` (1x1) on
    the shortcut, each followed by batch normalization ``bn1`` .. ``bn4``.

    Args:
        in_channels: Input channels.
        mid_channels: Channels of the inner convolutions.
        out_channels: Output channels.
        stride: Stride of the block.
        initialW: Initializer of the filters.
        downsample_fb: Put the stride on the 3x3 convolution (Facebook's
            ResNet) rather than on the first 1x1 one (the original MSRA
            ResNet, the default).
    """

    def __init__(
        self,
        in_channels: int,
        mid_channels: int,
        out_channels: int,
        stride: int = 2,
        initialW: Any = None,
        downsample_fb: bool = False,
    ) -> None:
        super().__init__()
        stride_1x1, stride_3x3 = (1, stride) if downsample_fb else (stride, 1)
        kw = {"initialW": initialW, "nobias": True}
        with self.init_scope():
            self.conv1 = Convolution2D(
                in_channels, mid_channels, 1, stride_1x1, 0, **kw
            )
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(
                mid_channels, mid_channels, 3, stride_3x3, 1, **kw
            )
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, out_channels, 1, 1, 0, **kw)
            self.bn3 = BatchNormalization(out_channels)
            self.conv4 = Convolution2D(in_channels, out_channels, 1, stride, 0, **kw)
            self.bn4 = BatchNormalization(out_channels)

    def forward(self, x: Any) -> Any:
        relu = relu_module.relu
        h1 = relu(self.bn1(self.conv1(x)))
        h1 = relu(self.bn2(self.conv2(h1)))
        h1 = self.bn3(self.conv3(h1))
        h2 = self.bn4(self.conv4(x))
        return relu(h1 + h2)


class BottleneckB(link.Chain):
    """Bottleneck keeping the resolution, with an identity shortcut:
    ``conv1`` (1x1), ``conv2`` (3x3), ``conv3`` (1x1) with ``bn1`` .. ``bn3``.
    """

    def __init__(
        self, in_channels: int, mid_channels: int, initialW: Any = None
    ) -> None:
        super().__init__()
        kw = {"initialW": initialW, "nobias": True}
        with self.init_scope():
            self.conv1 = Convolution2D(in_channels, mid_channels, 1, 1, 0, **kw)
            self.bn1 = BatchNormalization(mid_channels)
            self.conv2 = Convolution2D(mid_channels, mid_channels, 3, 1, 1, **kw)
            self.bn2 = BatchNormalization(mid_channels)
            self.conv3 = Convolution2D(mid_channels, in_channels, 1, 1, 0, **kw)
            self.bn3 = BatchNormalization(in_channels)

    def forward(self, x: Any) -> Any:
        relu = relu_module.relu
        h = relu(self.bn1(self.conv1(x)))
        h = relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return relu(h + x)


class BuildingBlock(link.Chain):
    """One :class:`BottleneckA` child ``a`` and ``n_layers - 1``
    :class:`BottleneckB` children ``b1``, ``b2``, ...

    Args:
        n_layers: Number of bottlenecks (``n_layer=`` is accepted, deprecated,
            as in Chainer).
        in_channels, mid_channels, out_channels, stride, initialW,
            downsample_fb: As for :class:`BottleneckA`.
    """

    def __init__(
        self,
        n_layers: int | None = None,
        in_channels: int | None = None,
        mid_channels: int | None = None,
        out_channels: int | None = None,
        stride: int | None = None,
        initialW: Any = None,
        downsample_fb: bool = False,
        **kwargs: Any,
    ) -> None:
        if "n_layer" in kwargs:
            warnings.warn(
                "Argument `n_layer` is deprecated. Please use `n_layers` instead",
                DeprecationWarning,
            )
            n_layers = kwargs.pop("n_layer")
        if kwargs:
            raise TypeError(f"BuildingBlock: unexpected arguments {sorted(kwargs)}")
        if n_layers is None:
            raise TypeError("BuildingBlock: n_layers is required")
        super().__init__()
        with self.init_scope():
            self.a = BottleneckA(
                in_channels,  # type: ignore[arg-type]
                mid_channels,  # type: ignore[arg-type]
                out_channels,  # type: ignore[arg-type]
                stride,  # type: ignore[arg-type]
                initialW,
                downsample_fb,
            )
            self._forward = ["a"]
            for i in range(1, n_layers):
                name = f"b{i}"
                setattr(
                    self,
                    name,
                    BottleneckB(
                        out_channels,  # type: ignore[arg-type]
                        mid_channels,  # type: ignore[arg-type]
                        initialW,
                    ),
                )
                self._forward.append(name)

    def forward(self, x: Any) -> Any:
        for name in self._forward:
            x = getattr(self, name)(x)
        return x


class ResNetLayers(_common.PretrainedLayers):
    """ResNet with 50, 101 or 152 layers in Chainer's layout (``conv1``,
    ``bn1``, ``res2`` .. ``res5`` of :class:`BuildingBlock`, ``fc6``).

    Args:
        pretrained_model: None (default) for random initialization
            (``HeNormal(scale=1.0)`` filters); a path to an npz saved by
            Chainer or kusari to load (zero initialization first); or a name
            ending in ``.caffemodel`` / ``'auto'`` to load Chainer's cached
            conversion ``ResNet-{n}-model.npz`` from the model directory
            under the dataset root (never downloaded or converted).
        n_layers: 50, 101 or 152.
        downsample_fb: Put the stride 2 on the 3x3 convolutions (Facebook's
            ResNet) rather than on the 1x1 ones (the original MSRA ResNet,
            the default).

    Attributes:
        available_layers: ``conv1``, ``pool1``, ``res2`` .. ``res5``,
            ``pool5``, ``fc6``, ``prob``.
    """

    def __init__(
        self, pretrained_model: Any, n_layers: int, downsample_fb: bool = False
    ) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(
                "The n_layers argument should be either 50, 101, or 152, but "
                f"{n_layers} was given."
            )
        if pretrained_model == "auto":
            pretrained_model = f"ResNet-{n_layers}-model.caffemodel"
        if pretrained_model:
            conv_kwargs: dict[str, Any] = {"initialW": initializers.Zero()}
        else:
            conv_kwargs = {"initialW": initializers.HeNormal(scale=1.0)}
        block = _BLOCKS[n_layers]
        init = conv_kwargs["initialW"]
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, 2, 3, **conv_kwargs)
            self.bn1 = BatchNormalization(64)
            self.res2 = BuildingBlock(block[0], 64, 64, 256, 1, init, downsample_fb)
            self.res3 = BuildingBlock(block[1], 256, 128, 512, 2, init, downsample_fb)
            self.res4 = BuildingBlock(block[2], 512, 256, 1024, 2, init, downsample_fb)
            self.res5 = BuildingBlock(block[3], 1024, 512, 2048, 2, init, downsample_fb)
            self.fc6 = Linear(2048, 1000)
        if pretrained_model and str(pretrained_model).endswith(".caffemodel"):
            _common.load_cached(
                f"ResNet-{n_layers}-model.npz",
                self,
                "ResNetLayers.convert_caffemodel_to_npz",
            )
        elif pretrained_model:
            _common.load_npz(pretrained_model, self)

    @property
    def functions(self) -> OrderedDict[str, list[Callable[[Any], Any]]]:
        return OrderedDict(
            [
                ("conv1", [self.conv1, self.bn1, relu_module.relu]),
                ("pool1", [_max_pooling_3x3]),
                ("res2", [self.res2]),
                ("res3", [self.res3]),
                ("res4", [self.res4]),
                ("res5", [self.res5]),
                ("pool5", [_global_average_pooling_2d]),
                ("fc6", [self.fc6]),
                ("prob", [softmax_module.softmax]),
            ]
        )

    def _prepare(self, image: Any, size: Any) -> Any:
        return prepare(image, size=size)


class ResNet50Layers(ResNetLayers):
    """ResNet-50 (25,557,096 parameters) in Chainer's layout.

    Args:
        pretrained_model: None (random initialization, the default), a path
            to an npz, or ``'auto'`` (Chainer's cached conversion). See
            :class:`ResNetLayers`.
        downsample_fb: Stride on the 3x3 convolutions (Facebook's ResNet).
    """

    def __init__(
        self, pretrained_model: Any = None, downsample_fb: bool = False
    ) -> None:
        super().__init__(pretrained_model, 50, downsample_fb)


class ResNet101Layers(ResNetLayers):
    """ResNet-101 (44,549,224 parameters) in Chainer's layout.

    Args:
        pretrained_model: As for :class:`ResNet50Layers`.
        downsample_fb: Stride on the 3x3 convolutions (Facebook's ResNet).
    """

    def __init__(
        self, pretrained_model: Any = None, downsample_fb: bool = False
    ) -> None:
        super().__init__(pretrained_model, 101, downsample_fb)


class ResNet152Layers(ResNetLayers):
    """ResNet-152 (60,192,872 parameters) in Chainer's layout.

    Args:
        pretrained_model: As for :class:`ResNet50Layers`.
        downsample_fb: Stride on the 3x3 convolutions (Facebook's ResNet).
    """

    def __init__(
        self, pretrained_model: Any = None, downsample_fb: bool = False
    ) -> None:
        super().__init__(pretrained_model, 152, downsample_fb)


def prepare(image: Any, size: Any = (224, 224)) -> Any:
    """Convert an image to a ResNet input array (float32).

    Resizes to ``size`` (unless None), converts RGB to BGR, subtracts the
    mean pixel ``(103.063, 115.903, 123.152)`` and transposes to ``(3, H,
    W)``. Needs Pillow.

    Args:
        image: A PIL image, or an RGB array of shape ``(H, W)``, ``(H, W,
            C)`` or ``(C, H, W)``.
        size: Output ``(width, height)`` given to ``PIL.Image.resize``.
    """
    return _common.prepare_bgr(image, size, (103.063, 115.903, 123.152), numpy.float32)
