"""Region proposals from the RPN's offsets and objectness (Faster R-CNN)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy

import kusari
from kusari import backend
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.utils.loc2bbox import loc2bbox
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression


class ProposalCreator:
    """Decode anchors, drop small boxes, keep the best ones after NMS.

    Args:
        nms_thresh: IoU threshold of the non-maximum suppression.
        n_train_pre_nms: Boxes kept before NMS in training mode.
        n_train_post_nms: Boxes kept after NMS in training mode.
        n_test_pre_nms: Boxes kept before NMS in test mode.
        n_test_post_nms: Boxes kept after NMS in test mode.
        force_cpu_nms: Run NMS on the CPU even for GPU arrays.
        min_size: Smallest side (in pixels of the original image) of a kept
            proposal.
    """

    def __init__(
        self,
        nms_thresh: float = 0.7,
        n_train_pre_nms: int = 12000,
        n_train_post_nms: int = 2000,
        n_test_pre_nms: int = 6000,
        n_test_post_nms: int = 300,
        force_cpu_nms: bool = False,
        min_size: float = 16,
    ) -> None:
        self.nms_thresh = nms_thresh
        self.n_train_pre_nms = n_train_pre_nms
        self.n_train_post_nms = n_train_post_nms
        self.n_test_pre_nms = n_test_pre_nms
        self.n_test_post_nms = n_test_post_nms
        self.force_cpu_nms = force_cpu_nms
        self.min_size = min_size

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nms_thresh={self.nms_thresh})"

    def __call__(
        self,
        loc: Array,
        score: Array,
        anchor: Array,
        img_size: Sequence[int],
        scale: float = 1.0,
    ) -> Array:
        """Proposals of one image.

        Args:
            loc: ``(A, 4)`` predicted offsets of the anchors.
            score: ``(A,)`` objectness of the anchors.
            anchor: ``(A, 4)`` anchors.
            img_size: ``(H, W)`` of the (scaled) input image.
            scale: Factor from the original image to the input.

        Returns:
            float32 ``(S, 4)`` proposals, best first.
        """
        if kusari.config.train:
            n_pre_nms, n_post_nms = self.n_train_pre_nms, self.n_train_post_nms
        else:
            n_pre_nms, n_post_nms = self.n_test_pre_nms, self.n_test_post_nms
        xp = backend.get_array_module(loc)
        roi = loc2bbox(xp.asarray(anchor), loc)
        roi[:, 0::2] = xp.clip(roi[:, 0::2], 0, img_size[0])
        roi[:, 1::2] = xp.clip(roi[:, 1::2], 0, img_size[1])

        min_size = self.min_size * scale
        hs = roi[:, 2] - roi[:, 0]
        ws = roi[:, 3] - roi[:, 1]
        keep = xp.where((hs >= min_size) & (ws >= min_size))[0]
        roi = roi[keep]
        score = score.ravel()[keep]

        order = xp.argsort(-score, kind="stable")
        if n_pre_nms > 0:
            order = order[:n_pre_nms]
        roi = roi[order]
        if self.force_cpu_nms and xp is not numpy:
            keep = xp.asarray(
                non_maximum_suppression(
                    kusari.backends.cuda.to_cpu(roi), self.nms_thresh
                )
            )
        else:
            # already sorted by score: no score argument needed
            keep = non_maximum_suppression(roi, self.nms_thresh)
        if n_post_nms > 0:
            keep = keep[:n_post_nms]
        return roi[keep].astype(numpy.float32, copy=False)
