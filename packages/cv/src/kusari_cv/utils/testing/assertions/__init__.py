"""Assertions that data sets, links and arrays follow ChainerCV's conventions."""

from kusari_cv.utils.testing.assertions.assert_is_bbox import assert_is_bbox
from kusari_cv.utils.testing.assertions.assert_is_bbox_dataset import (
    assert_is_bbox_dataset,
)
from kusari_cv.utils.testing.assertions.assert_is_detection_link import (
    assert_is_detection_link,
    assert_is_instance_segmentation_link,
    assert_is_semantic_segmentation_link,
)
from kusari_cv.utils.testing.assertions.assert_is_image import assert_is_image
from kusari_cv.utils.testing.assertions.assert_is_instance_segmentation_dataset import (
    assert_is_instance_segmentation_dataset,
)
from kusari_cv.utils.testing.assertions.assert_is_label_dataset import (
    assert_is_label_dataset,
)
from kusari_cv.utils.testing.assertions.assert_is_point import assert_is_point
from kusari_cv.utils.testing.assertions.assert_is_point_dataset import (
    assert_is_point_dataset,
)
from kusari_cv.utils.testing.assertions.assert_is_semantic_segmentation_dataset import (
    assert_is_semantic_segmentation_dataset,
)

__all__ = [
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
]
