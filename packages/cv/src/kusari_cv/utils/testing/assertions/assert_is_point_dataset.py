"""Check a keypoint data set."""

from __future__ import annotations

from typing import Any

from kusari_cv.utils.testing.assertions._dataset import examples
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image
from kusari_cv.utils.testing.assertions.assert_is_point import assert_is_point


def assert_is_point_dataset(
    dataset: Any,
    n_point: int | None = None,
    n_example: int | None = None,
    no_visible: bool = False,
) -> None:
    """Raise ``AssertionError`` unless every example (or ``n_example`` random
    ones) is ``(img, point, visible, ...)`` (``(img, point, ...)`` when
    ``no_visible``) with points inside the image.
    """
    for sample in examples(dataset, n_example, 2 if no_visible else 3):
        img, point = sample[0], sample[1]
        visible = None if no_visible else sample[2]
        assert_is_image(img, color=True)
        assert_is_point(point, visible, img.shape[1:], n_point)
