"""Base of the FPN detectors: pyramid features, RPN, box head."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model._preset import apply_preset
from kusari_cv.links.model.fpn.misc import scale_img

_PRESETS = {
    "visualize": {"nms_thresh": 0.5, "score_thresh": 0.7},
    "evaluate": {"nms_thresh": 0.5, "score_thresh": 0.05},
}


class FasterRCNN(kusari.Chain):
    """Faster R-CNN with a feature pyramid.

    Args:
        extractor: Returns pyramid maps; has ``scales`` and ``mean``.
        rpn: An :class:`~kusari_cv.links.model.fpn.RPN`.
        bbox_head: A :class:`~kusari_cv.links.model.fpn.BboxHead`.
        mask_head: A :class:`~kusari_cv.links.model.fpn.MaskHead` (used
            only when ``'masks'`` is requested).
        return_values: What :meth:`predict` returns, from ``'rois'``,
            ``'bboxes'``, ``'labels'``, ``'scores'`` and ``'masks'``.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side (before padding to the stride).

    Attributes:
        nms_thresh: IoU threshold of the per-class NMS.
        score_thresh: Minimum probability of a predicted box.
    """

    # Set by use_preset.
    nms_thresh: float
    score_thresh: float

    stride = 32
    _accepted_return_values = ("rois", "bboxes", "labels", "scores", "masks")

    def __init__(
        self,
        extractor: Any,
        rpn: Any,
        bbox_head: Any,
        mask_head: Any = None,
        return_values: Sequence[str] = ("bboxes", "labels", "scores"),
        min_size: int = 800,
        max_size: int = 1333,
    ) -> None:
        name = type(self).__name__
        for value in return_values:
            if value not in self._accepted_return_values:
                raise ValueError(
                    f"{name}: return_values must be among "
                    f"{self._accepted_return_values}, got {value!r}"
                )
        self._run_mask = "masks" in return_values
        if self._run_mask and mask_head is None:
            raise ValueError(f"{name}: return_values has 'masks' but no mask_head")
        super().__init__()
        self._return_values = tuple(return_values)
        self._run_bbox = any(v != "rois" for v in self._return_values)
        with self.init_scope():
            self.extractor = extractor
            self.rpn = rpn
            self.bbox_head = bbox_head
            if self._run_mask:
                self.mask_head = mask_head
        self.min_size = min_size
        self.max_size = max_size
        self.use_preset("visualize")

    def use_preset(self, preset: str) -> None:
        """Set ``nms_thresh`` and ``score_thresh`` for ``'visualize'`` or
        ``'evaluate'``."""
        apply_preset(self, _PRESETS, preset)

    def forward(self, x: Any) -> tuple[list[Any], Array, Array]:
        """Pyramid features, proposals ``(R, 4)`` and their image indices."""
        hs = self.extractor(x)
        rpn_locs, rpn_confs = self.rpn(hs)
        anchors = self.rpn.anchors(h.shape[2:] for h in hs)
        rois, roi_indices = self.rpn.decode(rpn_locs, rpn_confs, anchors, x.shape)
        return hs, rois, roi_indices

    def prepare(self, imgs: Sequence[Array]) -> tuple[Array, list[float]]:
        """Resize, subtract the mean and zero-pad to a multiple of ``stride``.

        Returns:
            ``(x, scales)``: the ``(N, 3, H, W)`` batch and each image's scale.
        """
        scales, resized = [], []
        for img in imgs:
            out, scale = scale_img(
                numpy.asarray(cuda.to_cpu(img), numpy.float32),
                self.min_size,
                self.max_size,
            )
            resized.append(out - cuda.to_cpu(self.extractor.mean))
            scales.append(scale)
        pad = numpy.array([im.shape[1:] for im in resized]).max(axis=0)
        pad = (numpy.ceil(pad / self.stride) * self.stride).astype(int)
        x = numpy.zeros((len(imgs), 3, pad[0], pad[1]), dtype=numpy.float32)
        for i, im in enumerate(resized):
            x[i, :, : im.shape[1], : im.shape[2]] = im
        return self.xp.asarray(x), scales

    def predict(self, imgs: Sequence[Array]) -> tuple[list[Array], ...]:
        """Detect objects; returns the lists named by ``return_values``
        (boxes float32 ``(R, 4)`` in each image's pixels, labels int32,
        scores float32, proposals float32 ``(R', 4)``)."""
        for img in imgs:
            if getattr(img, "ndim", None) != 3:
                raise ValueError(
                    f"{type(self).__name__}.predict: expected CHW images, got "
                    f"shape {getattr(img, 'shape', None)}"
                )
        sizes = [tuple(img.shape[1:]) for img in imgs]
        x, scales = self.prepare(imgs)
        output: dict[str, list[Array]] = {}
        with kusari.using_config("train", False), kusari.no_backprop_mode():
            hs, rois, roi_indices = self(x)
            if "rois" in self._return_values:
                output["rois"] = [
                    cuda.to_cpu(rois[roi_indices == i]) / scale
                    for i, scale in enumerate(scales)
                ]
            if self._run_bbox:
                head: Any = self.bbox_head
                b_rois, b_indices = head.distribute(rois, roi_indices)
                locs, confs = head(hs, b_rois, b_indices)
                bboxes, labels, scores = head.decode(
                    b_rois,
                    b_indices,
                    locs,
                    confs,
                    scales,
                    sizes,
                    self.nms_thresh,
                    self.score_thresh,
                )
                output["bboxes"] = [cuda.to_cpu(b) for b in bboxes]
                output["labels"] = [cuda.to_cpu(lbl) for lbl in labels]
                output["scores"] = [cuda.to_cpu(s) for s in scores]
                if self._run_mask:
                    output["masks"] = self._predict_masks(
                        hs, bboxes, output["bboxes"], output["labels"], scales, sizes
                    )
        return tuple(output[key] for key in self._return_values)

    def _predict_masks(
        self,
        hs: Any,
        bboxes: list[Array],
        bboxes_cpu: list[Array],
        labels_cpu: list[Array],
        scales: list[float],
        sizes: list[tuple[int, ...]],
    ) -> list[Array]:
        xp = self.xp
        head: Any = self.mask_head
        # boxes in input pixels, flattened with their image index
        flat = xp.concatenate([b * s for b, s in zip(bboxes, scales)]).astype(
            numpy.float32
        )
        indices = xp.concatenate(
            [xp.full(len(b), i, dtype=numpy.int32) for i, b in enumerate(bboxes)]
        )
        rois, roi_indices, order = head.distribute(flat, indices)
        segms = cuda.to_cpu(F.sigmoid(head(hs, rois, roi_indices)).array)[
            cuda.to_cpu(order)
        ]
        indices = cuda.to_cpu(indices)
        per_image = [segms[indices == i] for i in range(len(bboxes))]
        return head.decode(per_image, bboxes_cpu, labels_cpu, sizes)
