"""Region proposal network of FPN: shared head over every pyramid level."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import backend, initializers
from kusari_cv._typing import Array
from kusari_cv.links.model.fpn.misc import argsort, choice, exp_clip, smooth_l1
from kusari_cv.utils.bbox.bbox_iou import bbox_iou
from kusari_cv.utils.bbox.non_maximum_suppression import non_maximum_suppression


def _corners_to_center(b: Array) -> Array:
    b = b.copy()
    b[:, 2:] -= b[:, :2]
    b[:, :2] += b[:, 2:] / 2
    return b


def _center_to_corners(b: Array) -> Array:
    b = b.copy()
    b[:, :2] -= b[:, 2:] / 2
    b[:, 2:] += b[:, :2]
    return b


class RPN(kusari.Chain):
    """Objectness (sigmoid) and box offsets of three anchors per cell and level.

    The anchors of level ``l`` have area ``(32 * 2 ** l) ** 2`` and aspect
    ratios 0.5, 1 and 2.

    Args:
        scales: Scale of each feature map relative to the input.
    """

    _anchor_size = 32
    _anchor_ratios = (0.5, 1, 2)
    _nms_thresh = 0.7
    _train_nms_limit_pre = 2000
    _train_nms_limit_post = 2000
    _test_nms_limit_pre = 1000
    _test_nms_limit_post = 1000

    def __init__(self, scales: Sequence[float]) -> None:
        super().__init__()
        init: dict[str, Any] = {"initialW": initializers.Normal(0.01)}
        with self.init_scope():
            self.conv = L.Convolution2D(256, 3, pad=1, **init)
            self.loc = L.Convolution2D(len(self._anchor_ratios) * 4, 1, **init)
            self.conf = L.Convolution2D(len(self._anchor_ratios), 1, **init)
        self._scales = tuple(scales)

    def forward(self, hs: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        """Per level ``(N, K_l, 4)`` offsets and ``(N, K_l)`` objectness logits."""
        locs, confs = [], []
        for h in hs:
            h = F.relu(self.conv(h))
            loc = F.transpose(self.loc(h), (0, 2, 3, 1))
            locs.append(F.reshape(loc, (loc.shape[0], -1, 4)))
            conf = F.transpose(self.conf(h), (0, 2, 3, 1))
            confs.append(F.reshape(conf, (conf.shape[0], -1)))
        return locs, confs

    def anchors(self, sizes: Iterable[Sequence[int]]) -> list[Array]:
        """Anchors ``(H_l W_l A, 4)`` of each level, cell-major, ratio-minor."""
        anchors = []
        ratios = numpy.asarray(self._anchor_ratios, dtype=numpy.float64)
        for lvl, (H, W) in enumerate(sizes):
            scale = self._scales[lvl]
            w = numpy.round(1 / numpy.sqrt(ratios) / scale)
            h = numpy.round(w * ratios)
            size = numpy.stack((h, w), axis=1) * (self._anchor_size << lvl) * scale
            u, v = numpy.meshgrid(numpy.arange(H), numpy.arange(W), indexing="ij")
            center = (numpy.stack((u, v), axis=-1).reshape(-1, 1, 2) + 0.5) / scale
            center = numpy.broadcast_to(center, (H * W, len(ratios), 2))
            hw = numpy.broadcast_to(size, (H * W, len(ratios), 2))
            anchor = numpy.concatenate((center, hw), axis=2).reshape(-1, 4)
            anchors.append(self.xp.asarray(_center_to_corners(anchor), numpy.float32))
        return anchors

    def decode(
        self,
        locs: Sequence[Any],
        confs: Sequence[Any],
        anchors: Sequence[Array],
        in_shape: Sequence[int],
    ) -> tuple[Array, Array]:
        """Proposals ``(R, 4)`` and their image indices ``(R,)``.

        Per image and level: decode, clip to the input, keep the best
        ``nms_limit_pre`` by objectness, drop empty boxes, NMS (0.7); then the
        best ``nms_limit_post`` of all levels.
        """
        if kusari.config.train:
            limit_pre, limit_post = (
                self._train_nms_limit_pre,
                self._train_nms_limit_post,
            )
        else:
            limit_pre, limit_post = self._test_nms_limit_pre, self._test_nms_limit_post
        xp = self.xp
        rois, roi_indices = [], []
        for i in range(in_shape[0]):
            roi_i, conf_i = [], []
            for lvl in range(len(anchors)):
                loc = getattr(locs[lvl], "array", locs[lvl])[i]
                conf = getattr(confs[lvl], "array", confs[lvl])[i]
                roi = _corners_to_center(anchors[lvl])
                roi[:, :2] += loc[:, :2] * roi[:, 2:]
                roi[:, 2:] *= xp.exp(xp.minimum(loc[:, 2:], exp_clip))
                roi = _center_to_corners(roi)
                roi[:, :2] = xp.maximum(roi[:, :2], 0)
                roi[:, 2:] = xp.minimum(roi[:, 2:], xp.asarray(in_shape[2:], roi.dtype))
                order = argsort(-conf)[:limit_pre]
                roi, conf = roi[order], conf[order]
                keep = (roi[:, 2:] - roi[:, :2] > 0).all(axis=1)
                roi, conf = roi[keep], conf[keep]
                keep = non_maximum_suppression(roi, self._nms_thresh, limit=limit_post)
                roi_i.append(roi[keep])
                conf_i.append(conf[keep])
            roi = xp.concatenate(roi_i).astype(numpy.float32)
            conf = xp.concatenate(conf_i)
            roi = roi[argsort(-conf)[:limit_post]]
            rois.append(roi)
            roi_indices.append(xp.full(len(roi), i, dtype=numpy.int32))
        return (
            xp.concatenate(rois).astype(numpy.float32),
            xp.concatenate(roi_indices).astype(numpy.int32),
        )


def rpn_loss(
    locs: Sequence[Any],
    confs: Sequence[Any],
    anchors: Sequence[Array],
    sizes: Sequence[Sequence[int]],
    bboxes: Sequence[Array],
) -> tuple[Any, Any]:
    """Localization (smooth L1, beta 1/9) and objectness (sigmoid cross
    entropy) losses of the RPN, averaged over the images.

    Per image, anchors inside the image are positive when they are the best
    anchor of a ground truth or reach IoU 0.7, negative below IoU 0.3; 256
    anchors are sampled with at most a quarter positive. Both losses are
    divided by the number of sampled anchors.

    Args:
        locs: Per level ``(N, K_l, 4)`` offsets.
        confs: Per level ``(N, K_l)`` objectness logits.
        anchors: Per level anchors from :meth:`RPN.anchors`.
        sizes: ``(H, W)`` of each image (in input pixels).
        bboxes: Per image ``(R_n, 4)`` ground truth boxes.

    Returns:
        ``(loc_loss, conf_loss)``.
    """
    fg_thresh, bg_thresh = 0.7, 0.3
    n_per_image, fg_ratio = 256, 0.25
    all_locs = F.concat(list(locs), axis=1)
    all_confs = F.concat(list(confs), axis=1)
    xp = backend.get_array_module(all_locs.array)
    anchor = xp.concatenate(list(anchors))
    anchor_yx = (anchor[:, 2:] + anchor[:, :2]) / 2
    anchor_hw = anchor[:, 2:] - anchor[:, :2]

    loc_loss: Any = 0
    conf_loss: Any = 0
    for i in range(len(sizes)):
        bbox = xp.asarray(bboxes[i], dtype=numpy.float32)
        label = xp.full(len(anchor), -1, dtype=numpy.int32)
        inside = xp.logical_and(
            anchor[:, :2] >= 0, anchor[:, 2:] < xp.asarray(sizes[i], anchor.dtype)
        ).all(axis=1)
        gt_loc = xp.zeros_like(anchor)
        if len(bbox) > 0:
            iou = bbox_iou(anchor, bbox)
            gt = _corners_to_center(bbox[iou.argmax(axis=1)])
            gt_loc[:, :2] = (gt[:, :2] - anchor_yx) / anchor_hw
            gt_loc[:, 2:] = xp.log(gt[:, 2:] / anchor_hw)
            inside_index = xp.where(inside)[0]
            best = (iou[inside] == iou[inside].max(axis=0)).any(axis=1)
            label[inside_index[best]] = 1
            label[xp.logical_and(inside, iou.max(axis=1) >= fg_thresh)] = 1
            bg_index = xp.where(xp.logical_and(inside, iou.max(axis=1) < bg_thresh))[0]
        else:
            bg_index = xp.where(inside)[0]
        fg_index = xp.where(label == 1)[0]
        n_fg = int(n_per_image * fg_ratio)
        if len(fg_index) > n_fg:
            label[choice(fg_index, len(fg_index) - n_fg)] = -1
        n_bg = n_per_image - int((label == 1).sum())
        if len(bg_index) > n_bg:
            bg_index = choice(bg_index, n_bg)
        label[bg_index] = 0

        n_sample = max(int((label >= 0).sum()), 1)
        fg = xp.where(label == 1)[0]
        sampled = xp.where(label >= 0)[0]
        loc_loss += F.sum(smooth_l1(all_locs[i][fg], gt_loc[fg], 1 / 9)) / n_sample
        conf_loss += (
            F.sum(
                F.sigmoid_cross_entropy(
                    all_confs[i][sampled], label[sampled], reduce="no"
                )
            )
            / n_sample
        )
    return loc_loss / len(sizes), conf_loss / len(sizes)
