"""Faster R-CNN on VGG-16 (ChainerCV's ``FasterRCNNVGG16``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers, serializers
from kusari_cv import utils
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.faster_rcnn import FasterRCNN
from kusari_cv.links.model.faster_rcnn.region_proposal_network import (
    RegionProposalNetwork,
)
from kusari_cv.links.model.vgg import VGG16

_URL = "https://chainercv-models.preferred.jp/"


class VGG16RoIHead(kusari.Chain):
    """RoI pooling followed by VGG-16's ``fc6``/``fc7`` and two predictors.

    Args:
        n_class: Number of classes including the background.
        roi_size: Side of the pooled RoI features.
        spatial_scale: Factor from input pixels to feature pixels.
        vgg_initialW: Initializer of ``fc6`` and ``fc7``.
        loc_initialW: Initializer of ``cls_loc``.
        score_initialW: Initializer of ``score``.
    """

    def __init__(
        self,
        n_class: int,
        roi_size: int,
        spatial_scale: float,
        vgg_initialW: Any = None,
        loc_initialW: Any = None,
        score_initialW: Any = None,
    ) -> None:
        super().__init__()
        self.n_class = n_class
        self.roi_size = roi_size
        self.spatial_scale = spatial_scale
        with self.init_scope():
            self.fc6 = L.Linear(512 * roi_size * roi_size, 4096, initialW=vgg_initialW)
            self.fc7 = L.Linear(4096, 4096, initialW=vgg_initialW)
            self.cls_loc = L.Linear(4096, n_class * 4, initialW=loc_initialW)
            self.score = L.Linear(4096, n_class, initialW=score_initialW)

    def forward(
        self, x: Any, rois: Array, roi_indices: Array
    ) -> tuple[kusari.Variable, kusari.Variable]:
        """Class-wise offsets ``(R, n_class * 4)`` and scores ``(R, n_class)``.

        Args:
            x: ``(N, 512, H, W)`` features.
            rois: ``(R, 4)`` boxes ``(y_min, x_min, y_max, x_max)`` in input
                pixels.
            roi_indices: ``(R,)`` image index of each box.
        """
        xp = self.xp
        if len(rois) == 0:
            # kusari's roi_pooling_2d cannot reshape an empty batch of RoIs
            # (core gap); no RoI means empty predictions and no gradient
            dtype = self.fc6.W.dtype
            return (
                kusari.Variable(xp.zeros((0, self.n_class * 4), dtype)),
                kusari.Variable(xp.zeros((0, self.n_class), dtype)),
            )
        # roi_pooling_2d takes (batch_index, x_min, y_min, x_max, y_max)
        indices_and_rois = xp.concatenate(
            (
                xp.asarray(roi_indices, numpy.float32)[:, None],
                xp.asarray(rois, numpy.float32)[:, [1, 0, 3, 2]],
            ),
            axis=1,
        )
        pool = F.roi_pooling_2d(
            x, indices_and_rois, self.roi_size, self.roi_size, self.spatial_scale
        )
        fc6 = F.relu(self.fc6(pool))
        fc7 = F.relu(self.fc7(fc6))
        return self.cls_loc(fc7), self.score(fc7)


class FasterRCNNVGG16(FasterRCNN):
    """Faster R-CNN with a VGG-16 extractor (features of ``conv5_3``).

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'voc07'`` or ``'voc0712'`` (trained by ChainerCV;
            ``n_fg_class`` must be 20 or None), ``'imagenet'`` (VGG-16 weights
            copied into the extractor and ``fc6``/``fc7``), an npz path in
            ChainerCV's layout, or None.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        ratios: Anchor aspect ratios.
        anchor_scales: Anchor sizes in units of the stride 16.
        vgg_initialW: Initializer of the VGG-16 layers.
        rpn_initialW: Initializer of the RPN.
        loc_initialW: Initializer of the head's offset predictor.
        score_initialW: Initializer of the head's classifier.
        proposal_creator_params: Keyword arguments of ``ProposalCreator``.

    Example:
        >>> model = FasterRCNNVGG16(n_fg_class=2, min_size=64, max_size=96)
        >>> model.n_class
        3
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "voc07": {
            "param": {"n_fg_class": 20},
            "url": _URL + "faster_rcnn_vgg16_voc07_trained_2018_06_01.npz",
            "cv2": True,
        },
        "voc0712": {
            "param": {"n_fg_class": 20},
            "url": _URL + "faster_rcnn_vgg16_voc0712_trained_2017_07_21.npz",
            "cv2": True,
        },
    }
    feat_stride = 16

    def __init__(
        self,
        n_fg_class: int | None = None,
        pretrained_model: str | None = None,
        min_size: int = 600,
        max_size: int = 1000,
        ratios: Sequence[float] = (0.5, 1, 2),
        anchor_scales: Sequence[float] = (8, 16, 32),
        vgg_initialW: Any = None,
        rpn_initialW: Any = None,
        loc_initialW: Any = None,
        score_initialW: Any = None,
        proposal_creator_params: dict[str, Any] | None = None,
    ) -> None:
        imagenet = pretrained_model == "imagenet"
        param, path = utils.prepare_pretrained_model(
            {"n_fg_class": n_fg_class},
            None if imagenet else pretrained_model,
            self._models,
        )
        if loc_initialW is None:
            loc_initialW = initializers.Normal(0.001)
        if score_initialW is None:
            score_initialW = initializers.Normal(0.01)
        if rpn_initialW is None:
            rpn_initialW = initializers.Normal(0.01)
        if vgg_initialW is None and pretrained_model:
            # overwritten right away: skip drawing random numbers
            vgg_initialW = initializers.Zero()

        extractor = VGG16(initialW=vgg_initialW)
        extractor.pick = "conv5_3"
        extractor.remove_unused()
        rpn = RegionProposalNetwork(
            512,
            512,
            ratios=ratios,
            anchor_scales=anchor_scales,
            feat_stride=self.feat_stride,
            initialW=rpn_initialW,
            proposal_creator_params=proposal_creator_params,
        )
        head = VGG16RoIHead(
            param["n_fg_class"] + 1,
            roi_size=7,
            spatial_scale=1.0 / self.feat_stride,
            vgg_initialW=vgg_initialW,
            loc_initialW=loc_initialW,
            score_initialW=score_initialW,
        )
        mean = numpy.array([122.7717, 115.9465, 102.9801], numpy.float32)[:, None, None]
        super().__init__(
            extractor, rpn, head, mean=mean, min_size=min_size, max_size=max_size
        )
        if imagenet:
            self._copy_imagenet_pretrained_vgg16()
        elif path:
            serializers.load_npz(path, self)

    def _copy_imagenet_pretrained_vgg16(self) -> None:
        vgg = VGG16(pretrained_model="imagenet")
        extractor: Any = self.extractor
        head: Any = self.head
        for stage, n_conv in ((1, 2), (2, 2), (3, 3), (4, 3), (5, 3)):
            for i in range(1, n_conv + 1):
                name = f"conv{stage}_{i}"
                extractor[name].copyparams(vgg[name])
        head.fc6.copyparams(vgg.fc6)
        head.fc7.copyparams(vgg.fc7)
