"""Region Proposal Network of Faster R-CNN."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import backend
from kusari_cv._typing import Array
from kusari_cv.links.model.faster_rcnn.utils.generate_anchor_base import (
    generate_anchor_base,
)
from kusari_cv.links.model.faster_rcnn.utils.proposal_creator import ProposalCreator


def _enumerate_shifted_anchor(
    anchor_base: Array, feat_stride: int, height: int, width: int
) -> Array:
    # Anchors of every cell, cell-major (row by row), anchor-minor: the order
    # of the RPN's (B, H, W, A * 4) outputs.
    xp = backend.get_array_module(anchor_base)
    shift_y = xp.arange(0, height * feat_stride, feat_stride, dtype=numpy.float32)
    shift_x = xp.arange(0, width * feat_stride, feat_stride, dtype=numpy.float32)
    shift_x, shift_y = xp.meshgrid(shift_x, shift_y)
    shift = xp.stack(
        (shift_y.ravel(), shift_x.ravel(), shift_y.ravel(), shift_x.ravel()), axis=1
    )
    anchor = anchor_base[None, :, :] + shift[:, None, :]
    return anchor.reshape(-1, 4).astype(numpy.float32)


class RegionProposalNetwork(kusari.Chain):
    """Predict objectness and box offsets of anchors, then propose regions.

    Args:
        in_channels: Channels of the feature map.
        mid_channels: Channels of the shared 3x3 convolution.
        ratios: Anchor aspect ratios.
        anchor_scales: Anchor sizes in units of ``feat_stride``.
        feat_stride: Stride of the feature map in input pixels.
        initialW: Initializer of the convolutions' weights.
        proposal_creator_params: Keyword arguments of :class:`ProposalCreator`.
    """

    def __init__(
        self,
        in_channels: int = 512,
        mid_channels: int = 512,
        ratios: Sequence[float] = (0.5, 1, 2),
        anchor_scales: Sequence[float] = (8, 16, 32),
        feat_stride: int = 16,
        initialW: Any = None,
        proposal_creator_params: dict[str, Any] | None = None,
    ) -> None:
        super().__init__()
        self.anchor_base = generate_anchor_base(
            base_size=feat_stride, ratios=ratios, anchor_scales=anchor_scales
        )
        self.feat_stride = feat_stride
        self.proposal_layer = ProposalCreator(**(proposal_creator_params or {}))
        n_anchor = len(self.anchor_base)
        with self.init_scope():
            self.conv1 = L.Convolution2D(
                in_channels, mid_channels, 3, 1, 1, initialW=initialW
            )
            self.score = L.Convolution2D(
                mid_channels, n_anchor * 2, 1, 1, 0, initialW=initialW
            )
            self.loc = L.Convolution2D(
                mid_channels, n_anchor * 4, 1, 1, 0, initialW=initialW
            )

    def forward(
        self, x: Any, img_size: Sequence[int], scales: Any = None
    ) -> tuple[kusari.Variable, kusari.Variable, Array, Array, Array]:
        """Offsets, scores and proposals for a batch of feature maps.

        Args:
            x: ``(N, C, H, W)`` features.
            img_size: ``(H, W)`` of the input images.
            scales: Per image (or one for all) factor from the original
                image to the input; scales ``min_size`` of the proposals.

        Returns:
            ``(rpn_locs, rpn_scores, rois, roi_indices, anchor)``:
            ``(N, H W A, 4)`` offsets, ``(N, H W A, 2)`` scores, ``(R, 4)``
            proposals, ``(R,)`` int32 image index of each proposal and the
            ``(H W A, 4)`` anchors.
        """
        n, _, hh, ww = x.shape
        if scales is None:
            scales = [1.0] * n
        elif not isinstance(scales, Iterable):
            scales = [scales] * n
        scales = list(scales)
        xp = self.xp
        anchor = _enumerate_shifted_anchor(
            xp.asarray(self.anchor_base), self.feat_stride, hh, ww
        )
        n_anchor = len(self.anchor_base)
        h = F.relu(self.conv1(x))
        rpn_locs = F.reshape(F.transpose(self.loc(h), (0, 2, 3, 1)), (n, -1, 4))
        rpn_scores = F.reshape(F.transpose(self.score(h), (0, 2, 3, 1)), (n, -1, 2))
        # objectness probability per anchor (channel 1 is "object")
        scores = rpn_scores.array.reshape(n, hh * ww * n_anchor, 2)
        scores = scores - scores.max(axis=2, keepdims=True)
        fg = xp.exp(scores[:, :, 1]) / xp.exp(scores).sum(axis=2)

        rois, roi_indices = [], []
        for i in range(n):
            roi = self.proposal_layer(
                rpn_locs.array[i], fg[i], anchor, img_size, scale=scales[i]
            )
            rois.append(roi)
            roi_indices.append(xp.full(len(roi), i, dtype=numpy.int32))
        return (
            rpn_locs,
            rpn_scores,
            xp.concatenate(rois, axis=0),
            xp.concatenate(roi_indices, axis=0),
            anchor,
        )
