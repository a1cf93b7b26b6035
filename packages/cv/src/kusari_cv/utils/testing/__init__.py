"""Helpers for testing code built on kusari_cv."""

from kusari_cv.utils.testing.assertions import (
    assert_is_bbox,
    assert_is_bbox_dataset,
    assert_is_detection_link,
    assert_is_image,
    assert_is_instance_segmentation_dataset,
    assert_is_instance_segmentation_link,
    assert_is_label_dataset,
    assert_is_point,
    assert_is_point_dataset,
    assert_is_semantic_segmentation_dataset,
    assert_is_semantic_segmentation_link,
)
from kusari_cv.utils.testing.constant_stub_link import ConstantStubLink
from kusari_cv.utils.testing.generate_random_bbox import generate_random_bbox

__all__ = [
    "ConstantStubLink",
    "assert_is_bbox",
    "assert_is_bbox_dataset",
    "assert_is_detection_link",
    "assert_is_image",
    "assert_is_instance_segmentation_dataset",
    "assert_is_instance_segmentation_link",
    "assert_is_label_dataset",
    "assert_is_point",
    "assert_is_point_dataset",
    "assert_is_semantic_segmentation_dataset",
    "assert_is_semantic_segmentation_link",
    "generate_random_bbox",
]
