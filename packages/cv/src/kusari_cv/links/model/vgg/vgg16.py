"""VGG-16 (Simonyan and Zisserman 2015) as a pickable chain."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.initializers as I
import kusari.links as L
from kusari_cv import utils
from kusari_cv.links.connection import Conv2DActiv
from kusari_cv.links.model.pickable_sequential_chain import PickableSequentialChain

# RGB mean the Caffe VGG-16 weights were trained with.
_imagenet_mean = np.array([123.68, 116.779, 103.939], dtype=np.float32)[
    :, np.newaxis, np.newaxis
]


def max_pooling_2x2(x: Any) -> Any:
    """2x2, stride-2 max pooling between the convolution stages."""
    return F.max_pooling_2d(x, ksize=2)


class VGG16(PickableSequentialChain):
    """VGG-16 classifier; pick any layer as features.

    Layers: ``conv1_1``, ``conv1_2``, ``pool1``, ..., ``conv5_3``, ``pool5``,
    ``fc6``, ``fc6_relu``, ``fc6_dropout``, ``fc7``, ``fc7_relu``,
    ``fc7_dropout``, ``fc8`` and ``prob`` (softmax, the default output). The
    convolution layers include their ReLU.

    Args:
        n_class: Number of classes; the preset's (or 1000) when None.
        pretrained_model: ``'imagenet'`` (weights converted from Caffe), an
            ``.npz`` path in ChainerCV's layout, or None.
        mean: Mean image ``(3, 1, 1)``; the preset's when None.
        initialW: Initializer of the weights (``Normal(0.01)`` by default).
        initial_bias: Initializer of the biases.

    Example:
        >>> import numpy as np
        >>> from kusari_cv.links import VGG16
        >>> model = VGG16(n_class=3)
        >>> model.pick = 'conv3_3'
        >>> model(np.zeros((1, 3, 32, 32), np.float32)).shape
        (1, 256, 8, 8)
    """

    _models: dict[str, dict[str, Any]] = {
        "imagenet": {
            "param": {"n_class": 1000, "mean": _imagenet_mean},
            "overwritable": ("mean",),
            "url": "https://chainercv-models.preferred.jp/"
            "vgg16_imagenet_converted_2017_07_18.npz",
        }
    }

    def __init__(
        self,
        n_class: int | None = None,
        pretrained_model: str | None = None,
        mean: Any = None,
        initialW: Any = None,
        initial_bias: Any = None,
    ) -> None:
        param, path = utils.prepare_pretrained_model(
            {"n_class": n_class, "mean": mean},
            pretrained_model,
            self._models,
            {"n_class": 1000, "mean": _imagenet_mean},
        )
        if initialW is None:
            initialW = I.Normal(0.01)  # the original paper's initialization
        if pretrained_model:
            initialW = I.Zero()  # overwritten by the weights; skip sampling
        kwargs = {"initialW": initialW, "initial_bias": initial_bias}

        super().__init__()
        self.mean = param["mean"]
        stages = ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3))
        with self.init_scope():
            for stage, (channels, n_conv) in enumerate(stages, 1):
                for i in range(1, n_conv + 1):
                    conv = Conv2DActiv(None, channels, 3, 1, 1, **kwargs)
                    setattr(self, f"conv{stage}_{i}", conv)
                setattr(self, f"pool{stage}", max_pooling_2x2)
            self.fc6 = L.Linear(None, 4096, **kwargs)
            self.fc6_relu = F.relu
            self.fc6_dropout = F.dropout
            self.fc7 = L.Linear(None, 4096, **kwargs)
            self.fc7_relu = F.relu
            self.fc7_dropout = F.dropout
            self.fc8 = L.Linear(None, param["n_class"], **kwargs)
            self.prob = F.softmax
        if path:
            kusari.serializers.load_npz(path, self)
