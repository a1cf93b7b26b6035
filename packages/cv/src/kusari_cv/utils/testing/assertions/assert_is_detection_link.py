"""Check that a link follows the detection link API."""

from __future__ import annotations

from typing import Any

import numpy as np

from kusari_cv.utils.testing.assertions.assert_is_bbox import assert_is_bbox


def _check_label_score(label: Any, score: Any, n: int, n_fg_class: int) -> None:
    assert isinstance(label, np.ndarray) and label.dtype == np.int32, (
        "label must be a numpy.ndarray of int32"
    )
    assert label.shape == (n,), f"label must have shape ({n},), got {label.shape}"
    if n:
        assert label.min() >= 0 and label.max() < n_fg_class, (
            f"label must lie in [0, {n_fg_class - 1}]"
        )
    assert isinstance(score, np.ndarray) and score.dtype == np.float32, (
        "score must be a numpy.ndarray of float32"
    )
    assert score.shape == (n,), f"score must have shape ({n},), got {score.shape}"


def _images() -> list[np.ndarray]:
    return [
        np.random.randint(0, 256, size=(3, 480, 640)).astype(np.float32),
        np.random.randint(0, 256, size=(3, 480, 320)).astype(np.float32),
    ]


def assert_is_detection_link(link: Any, n_fg_class: int) -> None:
    """Raise ``AssertionError`` unless ``link.predict(imgs)`` returns
    ``(bboxes, labels, scores)`` with one entry per image, as detection
    links do."""
    imgs = _images()
    result = link.predict(imgs)
    assert len(result) == 3, "predict must return (bboxes, labels, scores)"
    bboxes, labels, scores = result
    for name, values in (("bboxes", bboxes), ("labels", labels), ("scores", scores)):
        assert len(values) == len(imgs), f"{name} must have one entry per image"
    for bbox, label, score in zip(bboxes, labels, scores):
        assert_is_bbox(bbox)
        _check_label_score(label, score, len(bbox), n_fg_class)


def assert_is_instance_segmentation_link(link: Any, n_fg_class: int) -> None:
    """Raise ``AssertionError`` unless ``link.predict(imgs)`` returns
    ``(masks, labels, scores)`` with bool ``(R, H, W)`` masks per image."""
    imgs = _images()
    result = link.predict(imgs)
    assert len(result) == 3, "predict must return (masks, labels, scores)"
    masks, labels, scores = result
    for name, values in (("masks", masks), ("labels", labels), ("scores", scores)):
        assert len(values) == len(imgs), f"{name} must have one entry per image"
    for img, mask, label, score in zip(imgs, masks, labels, scores):
        assert isinstance(mask, np.ndarray) and mask.dtype == np.bool_, (
            "mask must be a numpy.ndarray of bool"
        )
        assert mask.ndim == 3 and mask.shape[1:] == img.shape[1:], (
            f"mask must have shape (R, H, W) with (H, W) = {img.shape[1:]}, "
            f"got {mask.shape}"
        )
        _check_label_score(label, score, len(mask), n_fg_class)


def assert_is_semantic_segmentation_link(link: Any, n_class: int) -> None:
    """Raise ``AssertionError`` unless ``link.predict(imgs)`` returns one
    int32 ``(H, W)`` label map per image with values in ``[0, n_class)``."""
    imgs = _images()
    labels = link.predict(imgs)
    assert len(labels) == len(imgs), "predict must return one label per image"
    for img, label in zip(imgs, labels):
        assert isinstance(label, np.ndarray) and label.dtype == np.int32, (
            "label must be a numpy.ndarray of int32"
        )
        assert label.shape == img.shape[1:], (
            f"label must have shape {img.shape[1:]}, got {label.shape}"
        )
        assert label.min() >= 0 and label.max() < n_class, (
            f"label must lie in [0, {n_class - 1}]"
        )
