"""Shared setup of the model tests: a small two-stage detector's parts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari_cv.links.model.faster_rcnn import RegionProposalNetwork


class TinyExtractor(kusari.Chain):
    """Two stride-2 convolutions: 8 channels at stride 4. With ``two_maps``
    the map is returned twice, for the RPN and for the head."""

    def __init__(self, two_maps: bool = False) -> None:
        super().__init__()
        self.two_maps = two_maps
        with self.init_scope():
            self.c1 = L.Convolution2D(3, 8, 3, stride=2, pad=1)
            self.c2 = L.Convolution2D(8, 8, 3, stride=2, pad=1)

    def forward(self, x):
        h = F.relu(self.c2(F.relu(self.c1(x))))
        return (h, h) if self.two_maps else h


def _tiny_two_stage(model_class: type, head: kusari.Link, two_maps: bool) -> Any:
    rpn = RegionProposalNetwork(
        8,
        8,
        ratios=(0.5, 1, 2),
        anchor_scales=(2, 4),
        feat_stride=4,
        proposal_creator_params={
            "min_size": 2,
            "n_train_post_nms": 64,
            "n_test_post_nms": 32,
        },
    )
    return model_class(
        TinyExtractor(two_maps),
        rpn,
        head,
        mean=np.zeros((3, 1, 1), np.float32),
        min_size=32,
        max_size=48,
    )


@pytest.fixture
def tiny_two_stage() -> Callable[..., Any]:
    """``tiny_two_stage(model_class, head, two_maps=False)``: a
    ``model_class`` (FasterRCNN or a subclass) with a :class:`TinyExtractor`,
    a small RPN (2 scales x 3 ratios, stride 4) and ``head``, for 32-48 px
    inputs and a zero mean."""

    def make(model_class: type, head: kusari.Link, two_maps: bool = False) -> Any:
        return _tiny_two_stage(model_class, head, two_maps)

    return make
