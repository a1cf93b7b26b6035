"""Light-Head R-CNN (Li et al., 2017): a thin position-sensitive head."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy

import kusari
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.faster_rcnn import FasterRCNN

_PRESETS = {
    "visualize": {"nms_thresh": 0.5, "score_thresh": 0.5},
    "evaluate": {"nms_thresh": 0.5, "score_thresh": 0.0},
}


class LightHeadRCNN(FasterRCNN):
    """Base of Light-Head R-CNN models.

    As :class:`~kusari_cv.links.model.faster_rcnn.FasterRCNN`, except that the
    extractor returns two maps (one for the RPN, one for the head) and
    ``predict`` keeps the ``max_n_predict`` best boxes of each image.

    Args:
        extractor: Returns ``(rpn_features, roi_features)``.
        rpn: Region proposal network.
        head: RoI head with an ``n_class`` attribute.
        mean: Subtracted from each CHW RGB image.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        loc_normalize_mean: Mean of the head's offset targets.
        loc_normalize_std: Standard deviation of the head's offset targets.
    """

    _presets: ClassVar[dict[str, dict[str, float]]] = _PRESETS

    def forward(
        self, x: Any, scales: Any = None
    ) -> tuple[kusari.Variable, kusari.Variable, Array, Array]:
        """Class-wise offsets, class scores, RoIs and their image indices."""
        img_size = x.shape[2:]
        rpn_features, roi_features = self.extractor(x)
        _, _, rois, roi_indices, _ = self.rpn(rpn_features, img_size, scales)
        roi_cls_locs, roi_scores = self.head(roi_features, rois, roi_indices)
        return roi_cls_locs, roi_scores, rois, roi_indices

    def use_preset(self, preset: str) -> None:
        """Set ``nms_thresh``, ``score_thresh`` and ``max_n_predict`` (100)
        for ``'visualize'`` or ``'evaluate'``."""
        super().use_preset(preset)
        self.max_n_predict = 100

    def predict(
        self, imgs: Sequence[Array]
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Detect objects; at most ``max_n_predict`` boxes per image, best
        first (see :meth:`FasterRCNN.predict`)."""
        bboxes, labels, scores = super().predict(imgs)
        for i, score in enumerate(scores):
            order = numpy.argsort(-score, kind="stable")[: self.max_n_predict]
            bboxes[i], labels[i], scores[i] = (
                bboxes[i][order],
                labels[i][order],
                score[order],
            )
        return bboxes, labels, scores
