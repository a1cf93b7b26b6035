"""FCIS (Li et al. 2017): fully convolutional instance-aware segmentation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import kusari
import kusari.functions as F
from kusari.backends import cuda
from kusari_cv._typing import Array
from kusari_cv.links.model.fcis.utils.mask_voting import mask_voting
from kusari_cv.links.model.fpn.misc import scale_img
from kusari_cv.transforms import resize

_PRESETS: dict[str, dict[str, float]] = {
    "visualize": {"score_thresh": 0.7},
    "evaluate": {"score_thresh": 1e-3},
}


class FCIS(kusari.Chain):
    """Base of FCIS models: extractor, region proposals, position-sensitive
    mask and class head, then mask voting.

    Args:
        extractor: Returns ``(rpn_features, roi_features)`` of an image batch.
        rpn: Region proposal network
            (:class:`~kusari_cv.links.model.faster_rcnn.RegionProposalNetwork`).
        head: Returns ``(roi_ag_seg_scores, roi_ag_locs, roi_cls_scores,
            rois, roi_indices)``; has an ``n_class`` attribute (background
            included).
        mean: Subtracted from each CHW RGB image by :meth:`prepare`.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        loc_normalize_mean: Mean of the head's box offset targets.
        loc_normalize_std: Standard deviation of the head's box offset targets.
    """

    def __init__(
        self,
        extractor: kusari.Link,
        rpn: kusari.Link,
        head: kusari.Link,
        mean: Any,
        min_size: int,
        max_size: int,
        loc_normalize_mean: Sequence[float],
        loc_normalize_std: Sequence[float],
    ) -> None:
        super().__init__()
        with self.init_scope():
            self.extractor = extractor
            self.rpn = rpn
            self.head = head
        self.mean = mean
        self.min_size = min_size
        self.max_size = max_size
        self.loc_normalize_mean = loc_normalize_mean
        self.loc_normalize_std = loc_normalize_std
        self.use_preset("visualize")

    @property
    def n_class(self) -> int:
        """Number of classes, background included."""
        head: Any = self.head
        return int(head.n_class)

    def forward(
        self, x: Any, scales: Any = None
    ) -> tuple[kusari.Variable, kusari.Variable, kusari.Variable, Array, Array]:
        """Raw outputs for a batch of prepared images.

        Args:
            x: ``(B, 3, H, W)`` images (after :meth:`prepare`).
            scales: Factor(s) from the original images to ``x``; the RPN
                drops proposals smaller than its ``min_size`` times this.

        Returns:
            ``(roi_ag_seg_scores, roi_ag_locs, roi_cls_scores, rois,
            roi_indices)``: ``(R, 2, S, S)`` class-agnostic
            background/foreground mask scores, ``(R, 2, 4)`` box offsets,
            ``(R, n_class)`` class scores, ``(R, 4)`` RoIs and ``(R,)`` their
            image indices.
        """
        img_size = x.shape[2:]
        rpn_features, roi_features = self.extractor(x)
        _, _, rois, roi_indices, _ = self.rpn(rpn_features, img_size, scales)
        return self.head(roi_features, rois, roi_indices, img_size)

    def prepare(self, img: Array) -> Array:
        """Resize a CHW RGB image so its shorter side is ``min_size`` (the
        longer at most ``max_size``) and subtract :attr:`mean`."""
        img, _ = scale_img(img, self.min_size, self.max_size)
        return (img - self.mean).astype(np.float32, copy=False)

    def use_preset(self, preset: str) -> None:
        """Set the thresholds of :meth:`predict` for ``'visualize'`` (score
        0.7) or ``'evaluate'`` (score 0.001).

        Both set ``nms_thresh`` 0.3, ``mask_merge_thresh`` 0.5,
        ``binary_thresh`` 0.4, ``limit`` 100 and ``min_drop_size`` 16; change
        the attributes directly for other values.
        """
        if preset not in _PRESETS:
            raise ValueError(
                f"{type(self).__name__}.use_preset: expected 'visualize' or "
                f"'evaluate', got {preset!r}"
            )
        self.score_thresh = _PRESETS[preset]["score_thresh"]
        self.nms_thresh = 0.3
        self.mask_merge_thresh = 0.5
        self.binary_thresh = 0.4
        self.limit = 100
        self.min_drop_size = 16

    def predict(
        self, imgs: Sequence[Array]
    ) -> tuple[list[Array], list[Array], list[Array]]:
        """Segment the instances in each image.

        Args:
            imgs: CHW RGB images with values in ``[0, 255]``.

        Returns:
            ``(masks, labels, scores)``, one entry per image: ``(N, H, W)``
            bool masks, ``(N,)`` int32 labels (background excluded) and
            ``(N,)`` float32 class probabilities.
        """
        masks, labels, scores = [], [], []
        for img in imgs:
            if getattr(img, "ndim", None) != 3:
                raise ValueError(
                    f"{type(self).__name__}.predict: expected CHW images, got "
                    f"shape {getattr(img, 'shape', None)}"
                )
            size = img.shape[1:]
            prepared = self.prepare(np.asarray(cuda.to_cpu(img), dtype=np.float32))
            with kusari.using_config("train", False), kusari.no_backprop_mode():
                scale = prepared.shape[2] / size[1]
                seg_scores, _, cls_scores, rois, _ = self.forward(
                    self.xp.asarray(prepared[None]), scales=[scale]
                )
            seg_score = cuda.to_cpu(seg_scores.array)
            cls_score = cuda.to_cpu(cls_scores.array)
            bbox = np.array(cuda.to_cpu(rois), dtype=np.float32)

            # Drop RoIs too small in the network's input.
            height, width = bbox[:, 2] - bbox[:, 0], bbox[:, 3] - bbox[:, 1]
            keep = (height >= self.min_drop_size) & (width >= self.min_drop_size)
            seg_score, cls_score = seg_score[keep], cls_score[keep]
            bbox = bbox[keep] / scale
            bbox[:, 0::2] = np.clip(bbox[:, 0::2], 0, size[0])
            bbox[:, 1::2] = np.clip(bbox[:, 1::2], 0, size[1])

            seg_prob = F.softmax(seg_score, axis=1).array[:, 1]
            cls_prob = F.softmax(cls_score, axis=1).array
            seg_prob, bbox, label, score = mask_voting(
                seg_prob,
                bbox,
                cls_prob,
                size,
                self.score_thresh,
                self.nms_thresh,
                self.mask_merge_thresh,
                self.binary_thresh,
                limit=self.limit,
                bg_label=0,
            )
            mask = np.zeros((len(seg_prob), size[0], size[1]), dtype=bool)
            for i, (prob, box) in enumerate(zip(seg_prob, bbox)):
                y_min, x_min, y_max, x_max = (int(v) for v in np.round(box))
                pasted = resize(prob[None], (y_max - y_min, x_max - x_min))
                mask[i, y_min:y_max, x_min:x_max] = pasted[0] > self.binary_thresh
            masks.append(mask)
            labels.append(label)
            scores.append(score)
        return masks, labels, scores
