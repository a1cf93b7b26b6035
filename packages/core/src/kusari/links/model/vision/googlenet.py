"""GoogLeNet (Inception-v1, Szegedy et al., 2014) with Chainer's layer names."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

from kusari import initializers
from kusari.functions.activation import relu as relu_module
from kusari.functions.activation import softmax as softmax_module
from kusari.functions.noise import dropout as dropout_module
from kusari.functions.normalization import local_response_normalization as lrn_module
from kusari.functions.pooling import average_pooling_2d as avg_pool_module
from kusari.functions.pooling import max_pooling_2d as max_pool_module
from kusari.links.connection.convolution_2d import Convolution2D
from kusari.links.connection.inception import Inception
from kusari.links.connection.linear import Linear
from kusari.links.model.vision import _common


def _max_pooling_2d(x: Any) -> Any:
    return max_pool_module.max_pooling_2d(x, ksize=3, stride=2)


def _local_response_normalization(x: Any) -> Any:
    return lrn_module.local_response_normalization(x, n=5, k=1, alpha=1e-4 / 5)


def _average_pooling_2d_k5(x: Any) -> Any:
    return avg_pool_module.average_pooling_2d(x, ksize=5, stride=3)


def _average_pooling_2d_k7(x: Any) -> Any:
    return avg_pool_module.average_pooling_2d(x, ksize=7, stride=1)


def _dropout(x: Any) -> Any:
    return dropout_module.dropout(x, ratio=0.4)


class GoogLeNet(_common.PretrainedLayers):
    """GoogLeNet (BVLC's model) in Chainer's layout.

    Children ``conv1``, ``conv2_reduce``, ``conv2``, the :class:`Inception`
    modules ``inc3a`` .. ``inc5b``, the classifier ``loss3_fc`` and the
    auxiliary classifiers ``loss1_conv``, ``loss1_fc1``, ``loss1_fc2``,
    ``loss2_conv``, ``loss2_fc1``, ``loss2_fc2``.

    Args:
        pretrained_model: None (default) for random initialization
            (``LeCunUniform(scale=1.0)`` for the layers outside the Inception
            modules, as BVLC); a path to an npz saved by Chainer or kusari to
            load; or ``'auto'`` to load Chainer's cached conversion
            ``bvlc_googlenet.npz`` from the model directory under the dataset
            root (never downloaded).

    Attributes:
        available_layers: ``conv1`` ... ``pool5``, ``loss3_fc``, ``prob``,
            ``loss1_fc2``, ``loss2_fc2`` (the auxiliary outputs branch off
            ``inception_4a`` and ``inception_4d``).
    """

    _branches = {"loss1_fc2": "inception_4a", "loss2_fc2": "inception_4d"}

    def __init__(self, pretrained_model: Any = None) -> None:
        super().__init__()
        if pretrained_model:
            kwargs: dict[str, Any] = {"initialW": initializers.Zero()}
        else:
            kwargs = {"initialW": initializers.LeCunUniform(scale=1.0)}
        with self.init_scope():
            self.conv1 = Convolution2D(3, 64, 7, stride=2, pad=3, **kwargs)
            self.conv2_reduce = Convolution2D(64, 64, 1, **kwargs)
            self.conv2 = Convolution2D(64, 192, 3, stride=1, pad=1, **kwargs)
            self.inc3a = Inception(192, 64, 96, 128, 16, 32, 32)
            self.inc3b = Inception(256, 128, 128, 192, 32, 96, 64)
            self.inc4a = Inception(480, 192, 96, 208, 16, 48, 64)
            self.inc4b = Inception(512, 160, 112, 224, 24, 64, 64)
            self.inc4c = Inception(512, 128, 128, 256, 24, 64, 64)
            self.inc4d = Inception(512, 112, 144, 288, 32, 64, 64)
            self.inc4e = Inception(528, 256, 160, 320, 32, 128, 128)
            self.inc5a = Inception(832, 256, 160, 320, 32, 128, 128)
            self.inc5b = Inception(832, 384, 192, 384, 48, 128, 128)
            self.loss3_fc = Linear(1024, 1000, **kwargs)

            self.loss1_conv = Convolution2D(512, 128, 1, **kwargs)
            self.loss1_fc1 = Linear(2048, 1024, **kwargs)
            self.loss1_fc2 = Linear(1024, 1000, **kwargs)

            self.loss2_conv = Convolution2D(528, 128, 1, **kwargs)
            self.loss2_fc1 = Linear(2048, 1024, **kwargs)
            self.loss2_fc2 = Linear(1024, 1000, **kwargs)
        if pretrained_model == "auto":
            _common.load_cached(
                "bvlc_googlenet.npz", self, "GoogLeNet.convert_caffemodel_to_npz"
            )
        elif pretrained_model:
            _common.load_npz(pretrained_model, self)

    @property
    def functions(self) -> OrderedDict[str, list[Callable[[Any], Any]]]:
        relu = relu_module.relu
        lrn = _local_response_normalization
        return OrderedDict(
            [
                ("conv1", [self.conv1, relu]),
                ("pool1", [_max_pooling_2d, lrn]),
                ("conv2_reduce", [self.conv2_reduce, relu]),
                ("conv2", [self.conv2, relu, lrn]),
                ("pool2", [_max_pooling_2d]),
                ("inception_3a", [self.inc3a]),
                ("inception_3b", [self.inc3b]),
                ("pool3", [_max_pooling_2d]),
                ("inception_4a", [self.inc4a]),
                ("inception_4b", [self.inc4b]),
                ("inception_4c", [self.inc4c]),
                ("inception_4d", [self.inc4d]),
                ("inception_4e", [self.inc4e]),
                ("pool4", [_max_pooling_2d]),
                ("inception_5a", [self.inc5a]),
                ("inception_5b", [self.inc5b]),
                ("pool5", [_average_pooling_2d_k7]),
                ("loss3_fc", [_dropout, self.loss3_fc]),
                ("prob", [softmax_module.softmax]),
                # The auxiliary classifiers come last so that the usual layers do
                # not compute them; they restart from inception_4a / 4d.
                (
                    "loss1_fc2",
                    [
                        _average_pooling_2d_k5,
                        self.loss1_conv,
                        relu,
                        self.loss1_fc1,
                        relu,
                        self.loss1_fc2,
                    ],
                ),
                (
                    "loss2_fc2",
                    [
                        _average_pooling_2d_k5,
                        self.loss2_conv,
                        relu,
                        self.loss2_fc1,
                        relu,
                        self.loss2_fc2,
                    ],
                ),
            ]
        )

    def _prepare(self, image: Any, size: Any) -> Any:
        return prepare(image, size=size)


def prepare(image: Any, size: Any = (224, 224)) -> Any:
    """Convert an image to a GoogLeNet input array (float32).

    Resizes to ``size`` (unless None), converts RGB to BGR, subtracts the
    mean pixel ``(104, 117, 123)`` and transposes to ``(3, H, W)``. Needs
    Pillow.

    Args:
        image: A PIL image, or an RGB array of shape ``(H, W)``, ``(H, W,
            C)`` or ``(C, H, W)``.
        size: Output ``(width, height)`` given to ``PIL.Image.resize``.
    """
    return _common.prepare_bgr(image, size, (104.0, 117.0, 123.0), numpy.float32)
