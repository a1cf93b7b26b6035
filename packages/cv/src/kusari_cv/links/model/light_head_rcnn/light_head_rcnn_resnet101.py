"""Light-Head R-CNN on ResNet-101 (ChainerCV's ``LightHeadRCNNResNet101``)."""

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
from kusari_cv.functions import ps_roi_max_align_2d
from kusari_cv.links.model.faster_rcnn.region_proposal_network import (
    RegionProposalNetwork,
)
from kusari_cv.links.model.light_head_rcnn.global_context_module import (
    GlobalContextModule,
)
from kusari_cv.links.model.light_head_rcnn.light_head_rcnn import LightHeadRCNN
from kusari_cv.links.model.resnet.dilated_extractor import DilatedResNet101Extractor


def _max_pool(x: Any) -> Any:
    return F.max_pooling_2d(x, ksize=3, stride=2, pad=1, cover_all=False)


class ResNet101Extractor(DilatedResNet101Extractor):
    """ResNet-101 trunk returning ``(res4, res5)``; ``res5`` is dilated (stride 16).

    Batch normalization always uses its stored statistics, and ``conv1`` /
    ``res2`` receive no gradient (they stay as pretrained).

    Args:
        initialW: Initializer of the convolutions (He normal by default).
    """

    def __init__(self, initialW: Any = None) -> None:
        super().__init__(_max_pool, initialW, {"eps": 1e-5, "decay": 0.997})


class LightHeadRCNNResNet101Head(kusari.Chain):
    """Global context module, position-sensitive RoI max align, one fc layer.

    Args:
        n_class: Number of classes including the background.
        roi_size: Side of the pooled RoI (also the position-sensitive grid).
        spatial_scale: Factor from input pixels to feature pixels.
        global_module_initialW: Initializer of the global context module.
        loc_initialW: Initializer of ``cls_loc``.
        score_initialW: Initializer of ``fc1`` and ``score``.
    """

    def __init__(
        self,
        n_class: int,
        roi_size: int,
        spatial_scale: float,
        global_module_initialW: Any = None,
        loc_initialW: Any = None,
        score_initialW: Any = None,
    ) -> None:
        super().__init__()
        self.n_class = n_class
        self.roi_size = roi_size
        self.spatial_scale = spatial_scale
        n_ps = roi_size * roi_size * 10
        with self.init_scope():
            self.global_context_module = GlobalContextModule(
                2048, 256, n_ps, 15, initialW=global_module_initialW
            )
            self.fc1 = L.Linear(n_ps, 2048, initialW=score_initialW)
            self.score = L.Linear(2048, n_class, initialW=score_initialW)
            self.cls_loc = L.Linear(2048, 4 * n_class, initialW=loc_initialW)

    def forward(
        self, x: Any, rois: Array, roi_indices: Array
    ) -> tuple[kusari.Variable, kusari.Variable]:
        """Class-wise offsets ``(R, n_class * 4)`` and scores ``(R, n_class)``."""
        h = self.global_context_module(x)
        pool = ps_roi_max_align_2d(
            h,
            self.xp.asarray(rois, numpy.float32),
            self.xp.asarray(roi_indices, numpy.int32),
            (10, self.roi_size, self.roi_size),
            self.spatial_scale,
            self.roi_size,
            sampling_ratio=2,
        )
        fc1 = F.relu(self.fc1(pool))
        return self.cls_loc(fc1), self.score(fc1)


class LightHeadRCNNResNet101(LightHeadRCNN):
    """Light-Head R-CNN with a ResNet-101 extractor.

    Args:
        n_fg_class: Number of foreground classes.
        pretrained_model: ``'coco'`` (80 classes), ``'imagenet'`` (ResNet-101
            weights copied into the extractor), an npz path in ChainerCV's
            layout, or None.
        min_size: Shorter side of the resized input.
        max_size: Longest allowed side of the resized input.
        roi_size: Side of the pooled RoIs.
        ratios: Anchor aspect ratios.
        anchor_scales: Anchor sizes in units of the stride 16.
        loc_normalize_mean: Mean of the head's offset targets.
        loc_normalize_std: Standard deviation of the head's offset targets.
        resnet_initialW: Initializer of the ResNet layers.
        rpn_initialW: Initializer of the RPN.
        global_module_initialW: Initializer of the global context module.
        loc_initialW: Initializer of the offset predictor.
        score_initialW: Initializer of the classifier.
        proposal_creator_params: Keyword arguments of ``ProposalCreator``.
    """

    _models: ClassVar[dict[str, dict[str, Any]]] = {
        "coco": {
            "param": {"n_fg_class": 80},
            "url": "https://github.com/knorth55/chainer-light-head-rcnn/releases/"
            "download/v1.0.0/light_head_rcnn_resnet101_trained_2018_07_26.npz",
            "cv2": True,
        },
    }
    feat_stride = 16
    proposal_creator_params: ClassVar[dict[str, Any]] = {
        "nms_thresh": 0.7,
        "n_train_pre_nms": 12000,
        "n_train_post_nms": 2000,
        "n_test_pre_nms": 6000,
        "n_test_post_nms": 1000,
        "force_cpu_nms": False,
        "min_size": 0,
    }

    def __init__(
        self,
        n_fg_class: int | None = None,
        pretrained_model: str | None = None,
        min_size: int = 800,
        max_size: int = 1333,
        roi_size: int = 7,
        ratios: Sequence[float] = (0.5, 1, 2),
        anchor_scales: Sequence[float] = (2, 4, 8, 16, 32),
        loc_normalize_mean: Sequence[float] = (0.0, 0.0, 0.0, 0.0),
        loc_normalize_std: Sequence[float] = (0.1, 0.1, 0.2, 0.2),
        resnet_initialW: Any = None,
        rpn_initialW: Any = None,
        global_module_initialW: Any = None,
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
        if resnet_initialW is None and pretrained_model:
            resnet_initialW = initializers.HeNormal()
        if rpn_initialW is None:
            rpn_initialW = initializers.Normal(0.01)
        if global_module_initialW is None:
            global_module_initialW = initializers.Normal(0.01)
        if loc_initialW is None:
            loc_initialW = initializers.Normal(0.001)
        if score_initialW is None:
            score_initialW = initializers.Normal(0.01)
        creator_params = proposal_creator_params or self.proposal_creator_params

        extractor = ResNet101Extractor(initialW=resnet_initialW)
        rpn = RegionProposalNetwork(
            1024,
            512,
            ratios=ratios,
            anchor_scales=anchor_scales,
            feat_stride=self.feat_stride,
            initialW=rpn_initialW,
            proposal_creator_params=creator_params,
        )
        head = LightHeadRCNNResNet101Head(
            param["n_fg_class"] + 1,
            roi_size=roi_size,
            spatial_scale=1.0 / self.feat_stride,
            global_module_initialW=global_module_initialW,
            loc_initialW=loc_initialW,
            score_initialW=score_initialW,
        )
        mean = numpy.array([122.7717, 115.9465, 102.9801], numpy.float32)[:, None, None]
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
