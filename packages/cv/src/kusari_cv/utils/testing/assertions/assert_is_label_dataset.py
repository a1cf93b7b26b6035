"""Check a classification data set."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.utils.testing.assertions._dataset import examples
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image


def assert_is_label_dataset(
    dataset: Any, n_class: int, n_example: int | None = None, color: bool = True
) -> None:
    """Raise ``AssertionError`` unless every example (or ``n_example`` random
    ones) is ``(img, label)`` with an int32 scalar label in ``[0, n_class)``.
    """
    for img, label, *_ in examples(dataset, n_example, 2):
        assert_is_image(img, color=color)
        assert isinstance(label, np.int32), (
            f"label must be numpy.int32, got {type(label)}"
        )
        assert 0 <= label < n_class, (
            f"label must lie in [0, {n_class - 1}], got {label}"
        )
