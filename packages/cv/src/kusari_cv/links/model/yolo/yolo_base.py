"""Shared prediction code of the YOLO detectors."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

import kusari
from kusari.backends import cuda
from kusari_cv import transforms
from kusari_cv._typing import Array
from kusari_cv.links.model._preset import apply_preset
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression

_PRESETS = {
    "visualize": {"nms_thresh": 0.45, "score_thresh": 0.5},
    "evaluate": {"nms_thresh": 0.45, "score_thresh": 0.005},
}


class YOLOBase(kusari.Chain):
    """Base of YOLOv2 and YOLOv3.

    A subclass has an ``extractor`` with an ``insize``, a ``forward`` that
    returns ``(locs, objs, confs)`` of shapes ``(B, K, 4)``, ``(B, K)`` and
    ``(B, K, n_fg_class)``, and ``_decode_raw_values(loc, obj, conf)`` that
    turns one image's outputs into ``(K, 4)`` boxes in input pixels and
    ``(K, n_fg_class)`` scores.

    Attributes:
        nms_thresh: IoU threshold of the per-class NMS in predict.
        score_thresh: Minimum score of a predicted box.
    """

    # Set by use_preset.
    nms_thresh: float
    score_thresh: float

    extractor: Any
    n_fg_class: int
    _decode_raw_values: Callable[[Array, Array, Array], tuple[Array, Array]]

    @property
    def insize(self) -> int:
        """Side of the square input."""
        return int(self.extractor.insize)

    def use_preset(self, preset: str) -> None:
        """Set ``nms_thresh`` and ``score_thresh`` for ``'visualize'`` or
        ``'evaluate'``."""
        apply_preset(self, _PRESETS, preset)

    def _decode_raw(self, loc: Array, obj: Array, conf: Array) -> tuple[Array, Array]:
        # exp of large logits overflows to inf, which the sigmoids and sizes
        # handle (0 or inf); only the warning is silenced
        with numpy.errstate(over="ignore"):
            return self._decode_raw_values(loc, obj, conf)

    def _decode(
        self, loc: Array, obj: Array, conf: Array
    ) -> tuple[Array, Array, Array]:
        raw_bbox, raw_score = self._decode_raw(loc, obj, conf)
        xp = kusari.backend.get_array_module(raw_bbox)
        bboxes, labels, scores = [], [], []
        for lbl in range(self.n_fg_class):
            score_l = raw_score[:, lbl]
            mask = score_l >= self.score_thresh
            bbox_l = raw_bbox[mask]
            score_l = score_l[mask]
            keep = non_maximum_suppression(bbox_l, self.nms_thresh, score_l)
            bboxes.append(bbox_l[keep])
            labels.append(xp.full(len(keep), lbl, dtype=numpy.int32))
            scores.append(score_l[keep])
        return (
            xp.concatenate(bboxes).astype(numpy.float32, copy=False),
            xp.concatenate(labels).astype(numpy.int32, copy=False),
            xp.concatenate(scores).astype(numpy.float32, copy=False),
        )

    def predict(
        self, imgs: Sequence[Array]
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Detect objects in images.

        Each image is scaled to ``[0, 1]``, shrunk to fit (never enlarged) and
        centred on an ``insize`` square filled with 0.5.

        Args:
            imgs: CHW RGB images with values in ``[0, 255]``.

        Returns:
            ``(bboxes, labels, scores)``: per image a float32 ``(R, 4)``
            array of boxes in that image's pixels, int32 ``(R,)`` labels and
            float32 ``(R,)`` scores (NumPy).
        """
        xs, params = [], []
        for img in imgs:
            if getattr(img, "ndim", None) != 3:
                raise ValueError(
                    f"{type(self).__name__}.predict: expected CHW images, got "
                    f"shape {getattr(img, 'shape', None)}"
                )
            img = numpy.asarray(cuda.to_cpu(img), dtype=numpy.float32) / 255
            x, param = transforms.resize_contain(
                img, (self.insize, self.insize), fill=0.5, return_param=True
            )
            param["size"] = img.shape[1:]
            xs.append(x.astype(numpy.float32, copy=False))
            params.append(param)
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            locs, objs, confs = self(self.xp.asarray(numpy.stack(xs)))

        bboxes, labels, scores = [], [], []
        for loc, obj, conf, param in zip(locs.array, objs.array, confs.array, params):
            bbox, label, score = self._decode(loc, obj, conf)
            bbox = cuda.to_cpu(bbox)
            bbox = transforms.translate_bbox(
                bbox, -param["y_offset"], -param["x_offset"]
            )
            bbox = transforms.resize_bbox(bbox, param["scaled_size"], param["size"])
            bboxes.append(bbox.astype(numpy.float32, copy=False))
            labels.append(cuda.to_cpu(label))
            scores.append(cuda.to_cpu(score))
        return bboxes, labels, scores
