"""Check a semantic segmentation data set."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.utils.testing.assertions._dataset import examples
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image


def assert_is_semantic_segmentation_dataset(
    dataset: Any, n_class: int, n_example: int | None = None
) -> None:
    """Raise ``AssertionError`` unless every example (or ``n_example`` random
    ones) is ``(img, label)`` with an int32 ``(H, W)`` label whose values lie
    in ``[-1, n_class)`` (-1 marks pixels to ignore).
    """
    for img, label, *_ in examples(dataset, n_example, 2):
        assert_is_image(img, color=True)
        assert isinstance(label, np.ndarray) and label.dtype == np.int32, (
            "label must be a numpy.ndarray of int32"
        )
        assert label.shape == img.shape[1:], (
            f"label must have shape {img.shape[1:]}, got {label.shape}"
        )
        if label.size:
            assert label.min() >= -1 and label.max() < n_class, (
                f"label must lie in [-1, {n_class - 1}]"
            )
