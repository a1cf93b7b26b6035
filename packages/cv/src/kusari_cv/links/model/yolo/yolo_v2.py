"""YOLOv2 and YOLOv2 tiny (Redmon & Farhadi, 2017) on Darknet extractors."""

from __future__ import annotations

import itertools
from typing import Any, ClassVar

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import backend, serializers
from kusari_cv import utils
from kusari_cv._typing import Array
from kusari_cv.links.connection import Conv2DBNActiv
from kusari_cv.links.model.yolo.yolo_base import YOLOBase

_URL = "https://chainercv-models.preferred.jp/"


def _leaky_relu(x: Any) -> Any:
    return F.leaky_relu(x, slope=0.1)


def _maxpool(x: Any, ksize: int, stride: int | None = None) -> Any:
    # Darknet pads only at the bottom and right: pad both sides, drop the top
    # and left.
    if stride is None:
        stride = ksize
    h = F.max_pooling_2d(x, ksize, stride=stride, pad=ksize - stride)
    return h[:, :, ksize - stride :, ksize - stride :]


def _reorg(x: Any) -> Any:
    # Darknet's space-to-depth, with its own (non-standard) channel order so
    # that converted weights apply.
    n, c, h, w = x.shape
    x = F.reshape(x, (n, c // 4, h, 2, w, 2))
    x = F.transpose(x, (0, 3, 5, 1, 2, 4))
    return F.reshape(x, (n, c * 4, h // 2, w // 2))


def _conv(in_ch: int, out_ch: int, ksize: int) -> Conv2DBNActiv:
    return Conv2DBNActiv(in_ch, out_ch, ksize, pad=ksize // 2, activ=_leaky_relu)


class Darknet19Extractor(kusari.ChainList):
    """Darknet-19 with YOLOv2's passthrough layer; ``(B, 1024, 13, 13)`` out."""

    insize = 416
    grid = 13

    def __init__(self) -> None:
        super().__init__()
        in_ch = 3
        for k, n_conv in enumerate((1, 1, 3, 3, 5, 5)):
            for i in range(n_conv):
                out_ch = 32 << k if i % 2 == 0 else 32 << (k - 1)
                self.append(_conv(in_ch, out_ch, 3 if i % 2 == 0 else 1))
                in_ch = out_ch
        self.append(_conv(1024, 1024, 3))
        self.append(_conv(1024, 1024, 3))
        self.append(_conv(512, 64, 1))  # on the 26x26 passthrough
        self.append(_conv(1024 + 256, 1024, 3))

    def forward(self, x: Any) -> kusari.Variable:
        """Features of ``(B, 3, 416, 416)`` images."""
        h = x
        passthrough = None
        for i, link in enumerate(self):
            if i == 20:
                # the 1x1 convolution runs on the saved 26x26 map
                h = F.concat((_reorg(link(passthrough)), h))
                continue
            h = link(h)
            if i == 12:
                passthrough = h
            if i in (0, 1, 4, 7, 12):
                h = _maxpool(h, 2)
        return h


class DarknetExtractor(kusari.ChainList):
    """The tiny Darknet of YOLOv2 tiny; ``(B, 1024, 13, 13)`` out."""

    insize = 416
    grid = 13

    def __init__(self) -> None:
        super().__init__()
        in_ch = 3
        for k in range(7):
            self.append(_conv(in_ch, 16 << k, 3))
            in_ch = 16 << k
        self.append(_conv(in_ch, 1024, 3))

    def forward(self, x: Any) -> kusari.Variable:
        """Features of ``(B, 3, 416, 416)`` images."""
        h = x
        for i, link in enumerate(self):
            h = link(h)
            if i < 5:
                h = _maxpool(h, 2)
            elif i == 5:
                h = _maxpool(h, 2, stride=1)
        return h


class YOLOv2Base(YOLOBase):
    """YOLOv2's head and decoding; subclasses set the extractor and anchors."""

    _extractor: ClassVar[type[kusari.Link]]
    _models: ClassVar[dict[str, dict[str, Any]]]
    _anchors: ClassVar[tuple[tuple[float, float], ...]]

    def __init__(self, n_fg_class: int | None = None, pretrained_model: Any = None):
        super().__init__()
        param, path = utils.prepare_pretrained_model(
            {"n_fg_class": n_fg_class}, pretrained_model, self._models
        )
        self.n_fg_class = int(param["n_fg_class"])
        self.use_preset("visualize")
        with self.init_scope():
            self.extractor = self._extractor()
            self.subnet = L.Convolution2D(
                1024, len(self._anchors) * (4 + 1 + self.n_fg_class), 1
            )
        default_bbox = [
            (v, u, h, w)
            for v, u in itertools.product(range(self.extractor.grid), repeat=2)
            for h, w in self._anchors
        ]
        # (cell row, cell column, anchor height, anchor width) in cell units
        self._default_bbox = numpy.array(default_bbox, dtype=numpy.float32)
        if path:
            serializers.load_npz(path, self, strict=False)

    def forward(
        self, x: Any
    ) -> tuple[kusari.Variable, kusari.Variable, kusari.Variable]:
        """``(locs, objs, confs)`` of shapes ``(B, K, 4)``, ``(B, K)`` and
        ``(B, K, n_fg_class)`` for ``(B, 3, 416, 416)`` images in ``[0, 1]``."""
        h = self.subnet(self.extractor(x))
        h = F.transpose(h, (0, 2, 3, 1))
        h = F.reshape(h, (h.shape[0], -1, 4 + 1 + self.n_fg_class))
        return h[:, :, :4], h[:, :, 4], h[:, :, 5:]

    def _decode_raw_values(
        self, loc: Array, obj: Array, conf: Array
    ) -> tuple[Array, Array]:
        xp = backend.get_array_module(loc)
        default = xp.asarray(self._default_bbox)
        center = default[:, :2] + 1 / (1 + xp.exp(-loc[:, :2]))
        size = default[:, 2:] * xp.exp(loc[:, 2:])
        bbox = xp.concatenate((center - size / 2, center + size / 2), axis=1)
        bbox *= self.insize / self.extractor.grid
        obj = 1 / (1 + xp.exp(-obj))
        conf = xp.exp(conf - conf.max(axis=1, keepdims=True))
        conf /= conf.sum(axis=1, keepdims=True)
        return bbox, obj[:, None] * conf


class YOLOv2(YOLOv2Base):
    """YOLOv2 on :class:`Darknet19Extractor`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc0712'`` (converted from Darknet;
            ``n_fg_class`` must be 20 or None), an npz path in ChainerCV's
            layout, or None.
    """

    _extractor = Darknet19Extractor
    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": _URL + "yolo_v2_voc0712_converted_2018_05_03.npz",
            "cv2": True,
        },
    }
    _anchors = (
        (1.73145, 1.3221),
        (4.00944, 3.19275),
        (8.09892, 5.05587),
        (4.84053, 9.47112),
        (10.0071, 11.2364),
    )


class YOLOv2Tiny(YOLOv2Base):
    """YOLOv2 tiny on :class:`DarknetExtractor`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc0712'``, an npz path or None (see
            :class:`YOLOv2`).

    Example:
        >>> model = YOLOv2Tiny(n_fg_class=2)
        >>> model.insize, len(model._default_bbox)
        (416, 845)
    """

    _extractor = DarknetExtractor
    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": _URL + "yolo_v2_tiny_voc0712_converted_2018_10_19.npz",
            "cv2": True,
        },
    }
    _anchors = (
        (1.19, 1.08),
        (4.41, 3.42),
        (11.38, 6.63),
        (5.11, 9.42),
        (10.52, 16.62),
    )
