"""YOLOv3 (Redmon & Farhadi, 2018) on Darknet-53."""

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


def _leaky_relu(x: Any) -> Any:
    return F.leaky_relu(x, slope=0.1)


def _conv(in_ch: int, out_ch: int, ksize: int, stride: int = 1) -> Conv2DBNActiv:
    return Conv2DBNActiv(
        in_ch, out_ch, ksize, stride=stride, pad=ksize // 2, activ=_leaky_relu
    )


def _upsample(x: Any) -> Any:
    return F.unpooling_2d(x, 2, cover_all=False)


class ResidualBlock(kusari.ChainList):
    """Apply the links in turn and add the input to the result."""

    def __init__(self, *links: kusari.Link) -> None:
        super().__init__(*links)

    def forward(self, x: Any) -> Any:
        """``x + links(x)``."""
        h = x
        for link in self:
            h = link(h)
        return h + x


class Darknet53Extractor(kusari.ChainList):
    """Darknet-53 with YOLOv3's upsampling path; three maps of sides 13, 26, 52."""

    insize = 416
    grids = (13, 26, 52)

    def __init__(self) -> None:
        super().__init__()
        self.append(_conv(3, 32, 3))
        for k, n_block in enumerate((1, 2, 8, 8, 4)):
            self.append(_conv(32 << k, 32 << (k + 1), 3, stride=2))
            for _ in range(n_block):
                self.append(
                    ResidualBlock(
                        _conv(32 << (k + 1), 32 << k, 1),
                        _conv(32 << k, 32 << (k + 1), 3),
                    )
                )
        in_ch = 1024
        for i, n in enumerate((512, 256, 128)):
            if i > 0:
                self.append(_conv(in_ch, n, 1))
                in_ch = n + 2 * n  # after the concatenation with the skip map
            for j in range(5):
                out = n if j % 2 == 0 else 2 * n
                self.append(_conv(in_ch, out, 1 if j % 2 == 0 else 3))
                in_ch = out

    def forward(self, x: Any) -> list[kusari.Variable]:
        """Feature maps of ``(B, 3, 416, 416)`` images, coarsest first."""
        ys, skips = [], []
        h = x
        for i, link in enumerate(self):
            h = link(h)
            if i in (33, 39, 45):
                ys.append(h)
            elif i in (14, 23):
                skips.append(h)
            elif i in (34, 40):
                h = F.concat((_upsample(h), skips.pop()))
        return ys


class YOLOv3(YOLOBase):
    """YOLOv3 on :class:`Darknet53Extractor`.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc0712'`` (converted from Darknet;
            ``n_fg_class`` must be 20 or None), an npz path in ChainerCV's
            layout, or None.
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": "https://chainercv-models.preferred.jp/"
            "yolo_v3_voc0712_converted_2018_05_01.npz",
            "cv2": True,
        },
    }
    # (height, width) in input pixels per map
    _anchors = (
        ((90, 116), (198, 156), (326, 373)),
        ((61, 30), (45, 62), (119, 59)),
        ((13, 10), (30, 16), (23, 33)),
    )

    def __init__(self, n_fg_class: int | None = None, pretrained_model: Any = None):
        super().__init__()
        param, path = utils.prepare_pretrained_model(
            {"n_fg_class": n_fg_class}, pretrained_model, self._models
        )
        self.n_fg_class = int(param["n_fg_class"])
        self.use_preset("visualize")
        with self.init_scope():
            self.extractor = Darknet53Extractor()
            self.subnet = kusari.ChainList()
        for i, n in enumerate((512, 256, 128)):
            self.subnet.append(
                kusari.Sequential(
                    _conv(n, 2 * n, 3),
                    L.Convolution2D(
                        2 * n, len(self._anchors[i]) * (4 + 1 + self.n_fg_class), 1
                    ),
                )
            )
        default_bbox, step = [], []
        for k, grid in enumerate(self.extractor.grids):
            for v, u in itertools.product(range(grid), repeat=2):
                for h, w in self._anchors[k]:
                    default_bbox.append((v, u, h, w))
                    step.append(self.insize / grid)
        self._default_bbox = numpy.array(default_bbox, dtype=numpy.float32)
        self._step = numpy.array(step, dtype=numpy.float32)
        if path:
            serializers.load_npz(path, self, strict=False)

    def forward(
        self, x: Any
    ) -> tuple[kusari.Variable, kusari.Variable, kusari.Variable]:
        """``(locs, objs, confs)`` of shapes ``(B, K, 4)``, ``(B, K)`` and
        ``(B, K, n_fg_class)`` for ``(B, 3, 416, 416)`` images in ``[0, 1]``."""
        ys = []
        for i, h in enumerate(self.extractor(x)):
            h = F.transpose(self.subnet[i](h), (0, 2, 3, 1))
            ys.append(F.reshape(h, (h.shape[0], -1, 4 + 1 + self.n_fg_class)))
        y = F.concat(ys)
        return y[:, :, :4], y[:, :, 4], y[:, :, 5:]

    def _decode_raw_values(
        self, loc: Array, obj: Array, conf: Array
    ) -> tuple[Array, Array]:
        xp = backend.get_array_module(loc)
        default = xp.asarray(self._default_bbox)
        step = xp.asarray(self._step)[:, None]
        center = (default[:, :2] + 1 / (1 + xp.exp(-loc[:, :2]))) * step
        size = default[:, 2:] * xp.exp(loc[:, 2:])
        bbox = xp.concatenate((center - size / 2, center + size / 2), axis=1)
        score = (1 / (1 + xp.exp(-obj)))[:, None] / (1 + xp.exp(-conf))
        return bbox, score
