"""Check an instance segmentation data set."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.utils.testing.assertions._dataset import examples
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image


def assert_is_instance_segmentation_dataset(
    dataset: Any, n_fg_class: int, n_example: int | None = None
) -> None:
    """Raise ``AssertionError`` unless every example (or ``n_example`` random
    ones) is ``(img, mask, label, ...)`` with bool ``(R, H, W)`` masks and
    int32 ``(R,)`` labels in ``[0, n_fg_class)``.
    """
    for img, mask, label, *_ in examples(dataset, n_example, 3):
        assert_is_image(img, color=True)
        assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_, (
            "mask must be a numpy.ndarray of bool"
        )
        assert mask.ndim == 3 and mask.shape[1:] == img.shape[1:], (
            f"mask must have shape (R, H, W) with (H, W) = {img.shape[1:]}, "
            f"got {mask.shape}"
        )
        assert isinstance(label, np.ndarray) and label.dtype == np.int32, (
            "label must be a numpy.ndarray of int32"
        )
        assert label.shape == (len(mask),), (
            f"label must have shape ({len(mask)},), got {label.shape}"
        )
        if len(label):
            assert label.min() >= 0 and label.max() < n_fg_class, (
                f"label must lie in [0, {n_fg_class - 1}]"
            )
