"""Faster R-CNN (Ren et al., 2015): extractor, RPN and RoI head."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model._preset import apply_preset
from kusari_cv.links.model.faster_rcnn.utils.loc2bbox import loc2bbox
from kusari_cv.links.model.fpn.misc import scale_img
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression

_PRESETS = {
    "visualize": {"nms_thresh": 0.3, "score_thresh": 0.7},
    "evaluate": {"nms_thresh": 0.3, "score_thresh": 0.05},
}


class FasterRCNN(kusari.Chain):
    """Base of Faster R-CNN models.

    ``extractor`` turns a batch into features, ``rpn`` (a
    :class:`RegionProposalNetwork`) proposes regions, ``head`` classifies
    them and refines their boxes per class.

    Args:
        extractor: Feature extractor link.
        rpn: Region proposal network.
        head: RoI head with an ``n_class`` attribute (background included).
        mean: Subtracted from each CHW RGB image.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        loc_normalize_mean: Mean of the head's offset targets.
        loc_normalize_std: Standard deviation of the head's offset targets.

    Attributes:
        nms_thresh: IoU threshold of the per-class NMS in predict.
        score_thresh: Minimum probability of a predicted box.
    """

    # Set by use_preset.
    nms_thresh: float
    score_thresh: float

    # The thresholds :meth:`use_preset` sets, by preset name.
    _presets: ClassVar[dict[str, dict[str, float]]] = _PRESETS

    def __init__(
        self,
        extractor: kusari.Link,
        rpn: kusari.Link,
        head: kusari.Link,
        mean: Any,
        min_size: int = 600,
        max_size: int = 1000,
        loc_normalize_mean: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
        loc_normalize_std: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.extractor = extractor
            self.rpn = rpn
            self.head = head
        self.mean = mean
        self.min_size = min_size
        self.max_size = max_size
        self.loc_normalize_mean = tuple(loc_normalize_mean)
        self.loc_normalize_std = tuple(loc_normalize_std)
        self.use_preset("visualize")

    @property
    def n_class(self) -> int:
        """Number of classes including the background."""
        head: Any = self.head
        return int(head.n_class)

    def forward(
        self, x: Any, scales: Any = None
    ) -> tuple[kusari.Variable, kusari.Variable, Array, Array]:
        """Class-wise offsets, class scores, RoIs and their image indices.

        Args:
            x: ``(N, 3, H, W)`` prepared images.
            scales: Factors from the original images to ``x``.

        Returns:
            ``(roi_cls_locs, roi_scores, rois, roi_indices)`` of shapes
            ``(R, n_class * 4)``, ``(R, n_class)``, ``(R, 4)`` and ``(R,)``;
            ``rois`` are in ``x``'s pixels.
        """
        img_size = x.shape[2:]
        h = self.extractor(x)
        _, _, rois, roi_indices, _ = self.rpn(h, img_size, scales)
        roi_cls_locs, roi_scores = self.head(h, rois, roi_indices)
        return roi_cls_locs, roi_scores, rois, roi_indices

    def use_preset(self, preset: str) -> None:
        """Set ``nms_thresh`` and ``score_thresh`` for ``'visualize'`` or
        ``'evaluate'``."""
        apply_preset(self, self._presets, preset)

    def prepare(self, img: Array) -> Array:
        """Resize so the shorter side is ``min_size`` (the longer at most
        ``max_size``) and subtract the mean."""
        img, _ = scale_img(img, self.min_size, self.max_size)
        return (img - self.mean).astype(numpy.float32, copy=False)

    def _suppress(
        self, raw_cls_bbox: Array, raw_prob: Array
    ) -> tuple[Array, Array, Array]:
        bbox, label, score = [], [], []
        cls_bbox = raw_cls_bbox.reshape((-1, self.n_class, 4))
        for lbl in range(1, self.n_class):
            prob_l = raw_prob[:, lbl]
            mask = prob_l > self.score_thresh
            bbox_l = cls_bbox[:, lbl][mask]
            prob_l = prob_l[mask]
            keep = non_maximum_suppression(bbox_l, self.nms_thresh, prob_l)
            bbox.append(bbox_l[keep])
            label.append(numpy.full(len(keep), lbl - 1, dtype=numpy.int32))
            score.append(prob_l[keep])
        return (
            numpy.concatenate(bbox).astype(numpy.float32, copy=False),
            numpy.concatenate(label).astype(numpy.int32, copy=False),
            numpy.concatenate(score).astype(numpy.float32, copy=False),
        )

    def predict(
        self, imgs: Sequence[Array]
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Detect objects in images (each is run on its own).

        Args:
            imgs: CHW RGB images with values in ``[0, 255]``.

        Returns:
            ``(bboxes, labels, scores)``: per image a float32 ``(R, 4)``
            array of boxes in that image's pixels, int32 ``(R,)`` labels and
            float32 ``(R,)`` scores (NumPy).
        """
        xp = self.xp
        bboxes, labels, scores = [], [], []
        mean = xp.tile(xp.asarray(self.loc_normalize_mean, numpy.float32), self.n_class)
        std = xp.tile(xp.asarray(self.loc_normalize_std, numpy.float32), self.n_class)
        for img in imgs:
            if getattr(img, "ndim", None) != 3:
                raise ValueError(
                    f"{type(self).__name__}.predict: expected CHW images, got "
                    f"shape {getattr(img, 'shape', None)}"
                )
            size = img.shape[1:]
            x = self.prepare(numpy.asarray(cuda.to_cpu(img), dtype=numpy.float32))
            with kusari.using_config("train", False), kusari.no_backprop_mode():
                scale = x.shape[2] / size[1]
                roi_cls_locs, roi_scores, rois, _ = self.forward(
                    xp.asarray(x[None]), scales=[scale]
                )
            roi = rois / scale
            roi_cls_loc = (roi_cls_locs.array * std + mean).astype(numpy.float32)
            roi_cls_loc = roi_cls_loc.reshape((-1, 4))
            roi = xp.repeat(roi, self.n_class, axis=0)
            cls_bbox = loc2bbox(roi, roi_cls_loc).reshape((-1, self.n_class * 4))
            cls_bbox[:, 0::2] = xp.clip(cls_bbox[:, 0::2], 0, size[0])
            cls_bbox[:, 1::2] = xp.clip(cls_bbox[:, 1::2], 0, size[1])
            prob = F.softmax(roi_scores).array
            bbox, label, score = self._suppress(
                cuda.to_cpu(cls_bbox), cuda.to_cpu(prob)
            )
            bboxes.append(bbox)
            labels.append(label)
            scores.append(score)
        return bboxes, labels, scores
