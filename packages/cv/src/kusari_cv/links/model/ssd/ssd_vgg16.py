"""SSD300 and SSD512 on a VGG-16 base (ChainerCV's layer names)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers, serializers
from kusari_cv.links.model.ssd.multibox import Multibox
from kusari_cv.links.model.ssd.normalize import Normalize
from kusari_cv.links.model.ssd.ssd import SSD
from kusari_cv.utils.link import prepare_pretrained_model

# RGB mean of ImageNet, subtracted from the [0, 255] input
_imagenet_mean = numpy.array((123, 117, 104), dtype=numpy.float32).reshape((-1, 1, 1))

_URL = "https://chainercv-models.preferred.jp/"


def _extra_init() -> dict[str, Any]:
    return {
        "initialW": initializers.LeCunUniform(),
        "initial_bias": initializers.Zero(),
    }


class VGG16(kusari.Chain):
    """The VGG-16 trunk of SSD: ``conv1_1`` ... ``conv5_3``, ``conv6``, ``conv7``.

    ``conv6`` is a dilated 3x3 convolution and ``pool5`` a 3x3 stride-1
    pooling, so ``conv7`` keeps ``conv5``'s resolution. ``forward`` returns
    ``[norm4(conv4_3), conv7]``; subclasses append more maps.
    """

    def __init__(self) -> None:
        super().__init__()
        init = _extra_init()
        with self.init_scope():
            in_ch = 3
            for block, n_conv, out_ch in (
                (1, 2, 64),
                (2, 2, 128),
                (3, 3, 256),
                (4, 3, 512),
                (5, 3, 512),
            ):
                for i in range(1, n_conv + 1):
                    conv = L.Convolution2D(in_ch, out_ch, 3, pad=1, **init)
                    setattr(self, f"conv{block}_{i}", conv)
                    in_ch = out_ch
            self.norm4 = Normalize(512, initial=initializers.Constant(20))
            self.conv6 = L.DilatedConvolution2D(512, 1024, 3, pad=6, dilate=6, **init)
            self.conv7 = L.Convolution2D(1024, 1024, 1, **init)

    def forward(self, x: Any) -> list[kusari.Variable]:
        """Feature maps ``[norm4(conv4_3), conv7]`` of a ``(B, 3, H, W)`` batch."""
        ys = []
        h = x
        for block, n_conv in ((1, 2), (2, 2), (3, 3), (4, 3), (5, 3)):
            for i in range(1, n_conv + 1):
                h = F.relu(self[f"conv{block}_{i}"](h))
            if block == 4:
                ys.append(self.norm4(h))
            if block < 5:
                # cover_all (Chainer's default) rounds up: 75 -> 38 for SSD300
                h = F.max_pooling_2d(h, 2)
            else:
                h = F.max_pooling_2d(h, 3, stride=1, pad=1)
        h = F.relu(self.conv6(h))
        h = F.relu(self.conv7(h))
        ys.append(h)
        return ys


class _VGG16Extractor(VGG16):
    # (out_channels of conv{i}_2, ksize, stride, pad) for each extra block
    _extras: ClassVar[tuple[tuple[int, int, int, int, int], ...]] = ()

    def __init__(self) -> None:
        super().__init__()
        init = _extra_init()
        in_ch = 1024
        with self.init_scope():
            for i, (mid, out, ksize, stride, pad) in enumerate(self._extras, 8):
                setattr(self, f"conv{i}_1", L.Convolution2D(in_ch, mid, 1, **init))
                conv = L.Convolution2D(mid, out, ksize, stride=stride, pad=pad, **init)
                setattr(self, f"conv{i}_2", conv)
                in_ch = out

    def forward(self, x: Any) -> list[kusari.Variable]:
        """Feature maps of ``conv4_3``, ``conv7`` and every extra block."""
        ys = super().forward(x)
        for i in range(8, 8 + len(self._extras)):
            h = F.relu(self[f"conv{i}_1"](ys[-1]))
            ys.append(F.relu(self[f"conv{i}_2"](h)))
        return ys


class VGG16Extractor300(_VGG16Extractor):
    """Feature extractor of :class:`SSD300`: six maps of sides 38 ... 1."""

    insize = 300
    grids = (38, 19, 10, 5, 3, 1)
    _extras = (
        (256, 512, 3, 2, 1),
        (128, 256, 3, 2, 1),
        (128, 256, 3, 1, 0),
        (128, 256, 3, 1, 0),
    )


class VGG16Extractor512(_VGG16Extractor):
    """Feature extractor of :class:`SSD512`: seven maps of sides 64 ... 1."""

    insize = 512
    grids = (64, 32, 16, 8, 4, 2, 1)
    _extras = (
        (256, 512, 3, 2, 1),
        (128, 256, 3, 2, 1),
        (128, 256, 3, 2, 1),
        (128, 256, 3, 2, 1),
        (128, 256, 4, 1, 1),
    )


def _load(model: SSD, path: str | None, pretrained_model: Any) -> None:
    if path:
        # 'imagenet' holds only the VGG-16 weights: the heads stay random.
        strict = pretrained_model != "imagenet"
        serializers.load_npz(path, model, strict=strict)


class SSD300(SSD):
    """SSD with 300x300 inputs on :class:`VGG16Extractor300`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc0712'`` (converted from the authors' model;
            ``n_fg_class`` must be 20 or None), ``'imagenet'`` (VGG-16 weights
            only; the heads are random), a path to an npz in ChainerCV's
            layout, or None for random weights.

    Example:
        >>> model = SSD300(n_fg_class=3)
        >>> model.insize, model.n_fg_class, len(model.coder.default_bbox)
        (300, 3, 8732)
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": _URL + "ssd300_voc0712_converted_2017_06_06.npz",
            "cv2": True,
        },
        "imagenet": {
            "url": _URL + "ssd_vgg16_imagenet_converted_2017_06_09.npz",
            "cv2": True,
        },
    }

    def __init__(self, n_fg_class: int | None = None, pretrained_model: Any = None):
        param, path = prepare_pretrained_model(
            {"n_fg_class": n_fg_class}, pretrained_model, self._models
        )
        super().__init__(
            extractor=VGG16Extractor300(),
            multibox=Multibox(
                n_class=param["n_fg_class"] + 1,
                aspect_ratios=((2,), (2, 3), (2, 3), (2, 3), (2,), (2,)),
            ),
            steps=(8, 16, 32, 64, 100, 300),
            sizes=(30, 60, 111, 162, 213, 264, 315),
            mean=_imagenet_mean,
        )
        _load(self, path, pretrained_model)


class SSD512(SSD):
    """SSD with 512x512 inputs on :class:`VGG16Extractor512`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc0712'``, ``'imagenet'``, an npz path or None
            (see :class:`SSD300`).
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": _URL + "ssd512_voc0712_converted_2017_06_06.npz",
            "cv2": True,
        },
        "imagenet": {
            "url": _URL + "ssd_vgg16_imagenet_converted_2017_06_09.npz",
            "cv2": True,
        },
    }

    def __init__(self, n_fg_class: int | None = None, pretrained_model: Any = None):
        param, path = prepare_pretrained_model(
            {"n_fg_class": n_fg_class}, pretrained_model, self._models
        )
        super().__init__(
            extractor=VGG16Extractor512(),
            multibox=Multibox(
                n_class=param["n_fg_class"] + 1,
                aspect_ratios=((2,), (2, 3), (2, 3), (2, 3), (2, 3), (2,), (2,)),
            ),
            steps=(8, 16, 32, 64, 128, 256, 512),
            sizes=(35.84, 76.8, 153.6, 230.4, 307.2, 384.0, 460.8, 537.6),
            mean=_imagenet_mean,
        )
        _load(self, path, pretrained_model)
