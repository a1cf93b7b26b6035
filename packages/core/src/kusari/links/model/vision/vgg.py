"""VGG16 and VGG19 (Simonyan & Zisserman, 2014) with Chainer's layer names."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

import kusari
from kusari import initializers
from kusari.functions.activation import relu as relu_module
from kusari.functions.activation import softmax as softmax_module
from kusari.functions.noise import dropout as dropout_module
from kusari.functions.pooling import max_pooling_2d as max_pool_module
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.links.connection.linear import Linear
from kusari.links.model.vision import _common

# (block, number of 3x3 convolutions, output channels) for VGG16 / VGG19
_BLOCKS = {
    16: [(1, 2, 64), (2, 2, 128), (3, 3, 256), (4, 3, 512), (5, 3, 512)],
    19: [(1, 2, 64), (2, 2, 128), (3, 4, 256), (4, 4, 512), (5, 4, 512)],
}
_NPZ = {16: "VGG_ILSVRC_16_layers.npz", 19: "VGG_ILSVRC_19_layers.npz"}


def _max_pooling_2d(x: Any) -> Any:
    return max_pool_module.max_pooling_2d(x, ksize=2)


class VGGLayers(_common.PretrainedLayers):
    """VGG network of 16 or 19 layers (base of :class:`VGG16Layers` and
    :class:`VGG19Layers`).

    Children ``conv{block}_{i}`` (3x3 convolutions with padding 1), ``fc6``
    (``512 * 7 * 7 -> 4096``), ``fc7`` and ``fc8`` (``-> 1000``), named and
    shaped as in Chainer so a Chainer-converted npz loads.

    Args:
        pretrained_model: None (default) for a randomly initialized model
            (``Normal(0.01)`` weights, zero biases, as in the paper); a path
            to an npz saved by Chainer or kusari to load (the parameters
            are zero-initialized first, which is faster); or ``'auto'`` to
            load Chainer's cached conversion from the model directory under
            the dataset root (never downloaded).
        n_layers: 16 or 19.

    Attributes:
        available_layers: Names for ``forward`` and ``extract``: ``conv1_1``
            ... ``pool5``, ``fc6``, ``fc7``, ``fc8``, ``prob``.
    """

    _extract_default = "fc7"

    def __init__(self, pretrained_model: Any = None, n_layers: int = 16) -> None:
        super().__init__()
        if n_layers not in _BLOCKS:
            raise ValueError(
                f"The n_layers argument should be either 16 or 19, but {n_layers} "
                "was given."
            )
        if pretrained_model:
            # Zero initialization is much faster than sampling and the values
            # are overwritten anyway.
            init = initializers.Zero()
            kwargs: dict[str, Any] = {"initialW": init, "initial_bias": init}
        else:
            kwargs = {
                "initialW": initializers.Normal(0.01),
                "initial_bias": initializers.Zero(),
            }
        self.n_layers = n_layers
        with self.init_scope():
            in_ch = 3
            for block, count, out_ch in _BLOCKS[n_layers]:
                for i in range(1, count + 1):
                    conv = Convolution2D(in_ch, out_ch, 3, 1, 1, **kwargs)
                    setattr(self, f"conv{block}_{i}", conv)
                    in_ch = out_ch
            self.fc6 = Linear(512 * 7 * 7, 4096, **kwargs)
            self.fc7 = Linear(4096, 4096, **kwargs)
            self.fc8 = Linear(4096, 1000, **kwargs)
        if pretrained_model == "auto":
            _common.load_cached(
                _NPZ[n_layers], self, "VGGLayers.convert_caffemodel_to_npz"
            )
        elif pretrained_model:
            _common.load_npz(pretrained_model, self)

    @property
    def functions(self) -> OrderedDict[str, list[Callable[[Any], Any]]]:
        relu = relu_module.relu
        table: OrderedDict[str, list[Callable[[Any], Any]]] = OrderedDict()
        for block, count, _ in _BLOCKS[self.n_layers]:
            for i in range(1, count + 1):
                name = f"conv{block}_{i}"
                table[name] = [getattr(self, name), relu]
            table[f"pool{block}"] = [_max_pooling_2d]
        table["fc6"] = [self.fc6, relu, dropout_module.dropout]
        table["fc7"] = [self.fc7, relu, dropout_module.dropout]
        table["fc8"] = [self.fc8]
        table["prob"] = [softmax_module.softmax]
        return table

    def _prepare(self, image: Any, size: Any) -> Any:
        return prepare(image, size=size)


class VGG16Layers(VGGLayers):
    """VGG with 16 layers (Simonyan & Zisserman, 2014), Chainer's layout.

    Args:
        pretrained_model: None (random initialization, the default), a path
            to an npz to load, or ``'auto'`` (Chainer's cached conversion;
            never downloaded). See :class:`VGGLayers`.
    """

    def __init__(self, pretrained_model: Any = None) -> None:
        super().__init__(pretrained_model, 16)


class VGG19Layers(VGGLayers):
    """VGG with 19 layers (Simonyan & Zisserman, 2014), Chainer's layout.

    Args:
        pretrained_model: None (random initialization, the default), a path
            to an npz to load, or ``'auto'`` (Chainer's cached conversion;
            never downloaded). See :class:`VGGLayers`.
    """

    def __init__(self, pretrained_model: Any = None) -> None:
        super().__init__(pretrained_model, 19)


def prepare(image: Any, size: Any = (224, 224)) -> Any:
    """Convert an image to a VGG input array.

    Resizes to ``size`` (unless None), converts RGB to BGR, subtracts the
    mean pixel ``(103.939, 116.779, 123.68)`` and transposes to ``(3, H,
    W)``, in ``kusari.config.dtype``. Needs Pillow.

    Args:
        image: A PIL image, or an RGB array of shape ``(H, W)``, ``(H, W,
            C)`` or ``(C, H, W)``.
        size: Output ``(width, height)`` given to ``PIL.Image.resize``.
    """
    dtype = numpy.dtype(kusari.get_dtype())
    return _common.prepare_bgr(image, size, (103.939, 116.779, 123.68), dtype)
