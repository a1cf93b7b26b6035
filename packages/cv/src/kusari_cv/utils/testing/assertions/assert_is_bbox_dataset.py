"""Check a detection data set."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.utils.testing.assertions._dataset import examples
from kusari_cv.utils.testing.assertions.assert_is_bbox import assert_is_bbox
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image


def assert_is_bbox_dataset(
    dataset: Any, n_fg_class: int, n_example: int | None = None
) -> None:
    """Raise ``AssertionError`` unless every example (or ``n_example`` random
    ones) is ``(img, bbox, label, ...)`` with a CHW image, float32 boxes
    inside it and int32 labels in ``[0, n_fg_class)``.
    """
    for img, bbox, label, *_ in examples(dataset, n_example, 3):
        assert_is_image(img, color=True)
        assert_is_bbox(bbox, img.shape[1:])
        assert isinstance(label, np.ndarray) and label.dtype == np.int32, (
            "label must be a numpy.ndarray of int32"
        )
        assert label.shape == (len(bbox),), (
            f"label must have shape ({len(bbox)},), got {label.shape}"
        )
        if len(label):
            assert label.min() >= 0 and label.max() < n_fg_class, (
                f"label must lie in [0, {n_fg_class - 1}]"
            )
