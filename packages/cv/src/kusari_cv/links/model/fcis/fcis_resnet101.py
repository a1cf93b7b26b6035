"""FCIS on ResNet-101 (ChainerCV's ``FCISResNet101``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers, serializers
from kusari_cv import utils
from kusari_cv._typing import Array
from kusari_cv.functions import ps_roi_average_pooling_2d
from kusari_cv.links.model.faster_rcnn.region_proposal_network import (
    RegionProposalNetwork,
)
from kusari_cv.links.model.faster_rcnn.utils.loc2bbox import loc2bbox
from kusari_cv.links.model.fcis.fcis import FCIS
from kusari_cv.links.model.resnet.dilated_extractor import DilatedResNet101Extractor


def _max_pool(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2)


class ResNet101Extractor(DilatedResNet101Extractor):
    """ResNet-101 trunk returning ``(res4, res5)``; ``res5`` is dilated, so
    both have stride 16.

    Batch normalization always uses its stored statistics, and ``conv1`` /
    ``res2`` receive no gradient (they stay as pretrained).

    Args:
        initialW: Initializer of the convolutions (He normal by default).
    """

    def __init__(self, initialW: Any = None) -> None:
        super().__init__(_max_pool, initialW, {"eps": 1e-5})


class FCISResNet101Head(kusari.Chain):
    """FCIS's head: position-sensitive score maps pooled per RoI.

    A 1x1 convolution (``conv1``, ReLU) feeds ``cls_seg`` (inside/outside
    score maps of every class) and ``ag_loc`` (class-agnostic box offsets).
    Class scores average, over the RoI's bins, the larger of the inside and
    outside scores; the mask is that of the best class. With ``iter2``, the
    RoIs refined by the offsets are pooled a second time and appended.

    Args:
        n_class: Number of classes including the background.
        roi_size: Side of the pooled RoI.
        group_size: Side of the position-sensitive grid.
        spatial_scale: Factor from input pixels to feature pixels.
        loc_normalize_mean: Mean of the offset targets.
        loc_normalize_std: Standard deviation of the offset targets.
        initialW: Initializer of the convolutions (``Normal(0.01)``).
    """

    def __init__(
        self,
        n_class: int,
        roi_size: int,
        group_size: int,
        spatial_scale: float,
        loc_normalize_mean: Sequence[float],
        loc_normalize_std: Sequence[float],
        initialW: Any = None,
    ) -> None:
        super().__init__()
        if initialW is None:
            initialW = initializers.Normal(0.01)
        self.n_class = n_class
        self.roi_size = roi_size
        self.group_size = group_size
        self.spatial_scale = spatial_scale
        self.loc_normalize_mean = loc_normalize_mean
        self.loc_normalize_std = loc_normalize_std
        cells = group_size * group_size
        with self.init_scope():
            self.conv1 = L.Convolution2D(2048, 1024, 1, 1, 0, initialW=initialW)
            self.cls_seg = L.Convolution2D(
                1024, cells * n_class * 2, 1, 1, 0, initialW=initialW
            )
            self.ag_loc = L.Convolution2D(
                1024, cells * 2 * 4, 1, 1, 0, initialW=initialW
            )

    def forward(
        self,
        x: Any,
        rois: Array,
        roi_indices: Array,
        img_size: Sequence[int],
        gt_roi_labels: Array | None = None,
        iter2: bool = True,
    ) -> tuple[kusari.Variable, kusari.Variable, kusari.Variable, Array, Array]:
        """Mask scores, offsets and class scores of the RoIs.

        Args:
            x: ``(B, 2048, H, W)`` features.
            rois: ``(R, 4)`` boxes in input pixels.
            roi_indices: ``(R,)`` image index of each box.
            img_size: ``(H, W)`` of the input images (clips refined RoIs).
            gt_roi_labels: Take each RoI's mask from these classes instead of
                the best-scored one (training).
            iter2: Pool the refined RoIs too.

        Returns:
            ``(roi_ag_seg_scores (R', 2, S, S), roi_ag_locs (R', 2, 4),
            roi_cls_scores (R', n_class), rois (R', 4), roi_indices (R',))``
            with ``R' = 2R`` under ``iter2``.
        """
        xp = self.xp
        rois = xp.asarray(rois, np.float32)
        roi_indices = xp.asarray(roi_indices, np.int32)
        h = F.relu(self.conv1(x))
        h_cls_seg = self.cls_seg(h)
        h_ag_loc = self.ag_loc(h)
        seg, locs, cls = self._pool(
            h_cls_seg, h_ag_loc, rois, roi_indices, gt_roi_labels
        )
        if not iter2:
            return seg, locs, cls, rois, roi_indices
        mean = xp.asarray(self.loc_normalize_mean, np.float32)
        std = xp.asarray(self.loc_normalize_std, np.float32)
        fg_locs = (locs.array[:, 1, :] * std + mean).astype(np.float32)
        rois2 = loc2bbox(rois, fg_locs).astype(np.float32)
        rois2[:, 0::2] = xp.clip(rois2[:, 0::2], 0, img_size[0])
        rois2[:, 1::2] = xp.clip(rois2[:, 1::2], 0, img_size[1])
        seg2, locs2, cls2 = self._pool(
            h_cls_seg, h_ag_loc, rois2, roi_indices, gt_roi_labels
        )
        return (
            F.concat((seg, seg2), axis=0),
            F.concat((locs, locs2), axis=0),
            F.concat((cls, cls2), axis=0),
            xp.concatenate((rois, rois2)),
            xp.concatenate((roi_indices, roi_indices)),
        )

    def _pool(
        self,
        h_cls_seg: Any,
        h_ag_loc: Any,
        rois: Array,
        roi_indices: Array,
        gt_roi_labels: Array | None,
    ) -> tuple[kusari.Variable, kusari.Variable, kusari.Variable]:
        size = self.roi_size
        # (R, n_class, 2, S, S): outside/inside scores of every class.
        cls_seg = ps_roi_average_pooling_2d(
            h_cls_seg,
            rois,
            roi_indices,
            (self.n_class * 2, size, size),
            self.spatial_scale,
            self.group_size,
        )
        cls_seg = F.reshape(cls_seg, (-1, self.n_class, 2, size, size))
        # (R, 8, S, S) -> (R, 2, 4)
        ag_loc = ps_roi_average_pooling_2d(
            h_ag_loc,
            rois,
            roi_indices,
            (8, size, size),
            self.spatial_scale,
            self.group_size,
        )
        cls_scores = F.average(F.max(cls_seg, axis=2), axis=(2, 3))
        locs = F.reshape(F.average(ag_loc, axis=(2, 3)), (-1, 2, 4))
        if gt_roi_labels is None:
            chosen = cls_scores.array.argmax(axis=1)
        else:
            chosen = self.xp.asarray(gt_roi_labels)
        seg = cls_seg[self.xp.arange(len(chosen)), chosen]
        return seg, locs, cls_scores


_URL = "https://chainercv-models.preferred.jp/"


_proposal_params: dict[str, Any] = {
    "nms_thresh": 0.7,
    "n_train_pre_nms": 6000,
    "n_train_post_nms": 300,
    "n_test_pre_nms": 6000,
    "n_test_post_nms": 300,
    "force_cpu_nms": False,
}


def _sbd_or_coco(dataset: str) -> dict[str, Any]:
    if dataset == "sbd":
        return {
            "n_fg_class": 20,
            "anchor_scales": (8, 16, 32),
            "proposal_creator_params": {**_proposal_params, "min_size": 16},
        }
    return {
        "n_fg_class": 80,
        "anchor_scales": (4, 8, 16, 32),
        "proposal_creator_params": {**_proposal_params, "min_size": 2},
    }


class FCISResNet101(FCIS):
    """FCIS with a ResNet-101 extractor (dilated ``res5``, stride 16).

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'sbd'`` / ``'sbd_converted'`` (20 classes,
            trained here / converted from the authors' MXNet model),
            ``'coco'`` / ``'coco_converted'`` (80 classes), ``'imagenet'``
            (ResNet-101 weights copied into the extractor), an npz path in
            ChainerCV's layout, or None.
        feat_stride: Stride of the feature maps.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        roi_size: Side of the pooled RoIs (and of the predicted masks).
        group_size: Side of the position-sensitive grid.
        ratios: Anchor aspect ratios.
        anchor_scales: Anchor sizes in units of ``feat_stride``; the
            preset's, else ``(8, 16, 32)``.
        loc_normalize_mean: Mean of the head's offset targets.
        loc_normalize_std: Standard deviation of the head's offset targets.
        rpn_initialW: Initializer of the RPN (``Normal(0.01)``).
        resnet_initialW: Initializer of the extractor.
        head_initialW: Initializer of the head (``Normal(0.01)``).
        proposal_creator_params: Keyword arguments of ``ProposalCreator``;
            the preset's, else SBD's.
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        name: {
            "param": _sbd_or_coco(name.split("_")[0]),
            "overwritable": ("anchor_scales", "proposal_creator_params"),
            "url": _URL + file,
            "cv2": True,
        }
        for name, file in (
            ("sbd", "fcis_resnet101_sbd_trained_2018_06_22.npz"),
            ("sbd_converted", "fcis_resnet101_sbd_converted_2018_07_02.npz"),
            ("coco", "fcis_resnet101_coco_trained_2019_01_30.npz"),
            ("coco_converted", "fcis_resnet101_coco_converted_2019_01_30.npz"),
        )
    }

    def __init__(
        self,
        n_fg_class: int | None = None,
        pretrained_model: str | None = None,
        feat_stride: int = 16,
        min_size: int = 600,
        max_size: int = 1000,
        roi_size: int = 21,
        group_size: int = 7,
        ratios: Sequence[float] = (0.5, 1, 2),
        anchor_scales: Sequence[float] | None = None,
        loc_normalize_mean: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
        loc_normalize_std: Sequence[float] = (0.2, 0.2, 0.5, 0.5),
        rpn_initialW: Any = None,
        resnet_initialW: Any = None,
        head_initialW: Any = None,
        proposal_creator_params: dict[str, Any] | None = None,
    ) -> None:
        imagenet = pretrained_model == "imagenet"
        param, path = utils.prepare_pretrained_model(
            {
                "n_fg_class": n_fg_class,
                "anchor_scales": anchor_scales,
                "proposal_creator_params": proposal_creator_params,
            },
            None if imagenet else pretrained_model,
            self._models,
            {
                "anchor_scales": (8, 16, 32),
                "proposal_creator_params": _sbd_or_coco("sbd")[
                    "proposal_creator_params"
                ],
            },
        )
        if rpn_initialW is None:
            rpn_initialW = initializers.Normal(0.01)
        if resnet_initialW is None and pretrained_model:
            # Overwritten by the weights; skip the costly sampling.
            resnet_initialW = initializers.Zero()
        extractor = ResNet101Extractor(initialW=resnet_initialW)
        rpn = RegionProposalNetwork(
            1024,
            512,
            ratios=ratios,
            anchor_scales=param["anchor_scales"],
            feat_stride=feat_stride,
            initialW=rpn_initialW,
            proposal_creator_params=param["proposal_creator_params"],
        )
        head = FCISResNet101Head(
            param["n_fg_class"] + 1,
            roi_size=roi_size,
            group_size=group_size,
            spatial_scale=1.0 / feat_stride,
            loc_normalize_mean=loc_normalize_mean,
            loc_normalize_std=loc_normalize_std,
            initialW=head_initialW,
        )
        mean = np.array([123.15, 115.90, 103.06], np.float32)[:, None, None]
        super().__init__(
            extractor,
            rpn,
            head,
            mean,
            min_size,
            max_size,
            loc_normalize_mean,
            loc_normalize_std,
        )
        if imagenet:
            extractor.copy_imagenet_pretrained_resnet()
        elif path:
            serializers.load_npz(path, self)
