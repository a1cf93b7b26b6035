import numpy as np
import pytest

import kusari
from kusari_cv.utils import (
    ConstantStubLink,
    assert_is_bbox,
    assert_is_bbox_dataset,
    assert_is_detection_link,
    assert_is_image,
    assert_is_point,
    assert_is_semantic_segmentation_dataset,
    generate_random_bbox,
)


def test_generate_random_bbox():
    np.random.seed(0)
    bbox = generate_random_bbox(50, (40, 60), 5, 20)
    assert bbox.shape == (50, 4) and bbox.dtype == np.float32
    side = bbox[:, 2:] - bbox[:, :2]
    assert (side >= 5).all() and (side < 20).all()
    assert (bbox >= 0).all() and (bbox[:, 2:] <= (40, 60)).all()
    with pytest.raises(ValueError, match="generate_random_bbox"):
        generate_random_bbox(1, (10, 10), 1, 20)


def test_constant_stub_link():
    a, b = np.ones((2, 3), np.float32), np.zeros(4, np.int32)
    link = ConstantStubLink((a, b))
    ya, yb = link(np.zeros(1))
    assert isinstance(ya, kusari.Variable)
    np.testing.assert_array_equal(ya.array, a)
    np.testing.assert_array_equal(yb.array, b)
    single = ConstantStubLink(a)(None)
    np.testing.assert_array_equal(single.array, a)
    with pytest.raises(ValueError, match="ConstantStubLink"):
        ConstantStubLink([1, 2])


def test_array_assertions():
    assert_is_image(np.zeros((3, 4, 5), np.float32))
    with pytest.raises(AssertionError, match="3 channel"):
        assert_is_image(np.zeros((1, 4, 5), np.float32))
    with pytest.raises(AssertionError, match=r"\[0, 255\]"):
        assert_is_image(np.full((3, 4, 5), 300.0))
    assert_is_bbox(np.array([[0, 0, 2, 2]], np.float32), size=(2, 2))
    with pytest.raises(AssertionError, match="y_min <= y_max"):
        assert_is_bbox(np.array([[3, 0, 2, 2]], np.float32))
    with pytest.raises(AssertionError, match="beyond the image"):
        assert_is_bbox(np.array([[0, 0, 2, 3]], np.float32), size=(2, 2))
    assert_is_point(np.zeros((2, 3, 2), np.float32), np.ones((2, 3), bool), (5, 5), 3)
    with pytest.raises(AssertionError, match=r"\(R, K, 2\)"):
        assert_is_point(np.zeros((2, 3), np.float32))


def test_dataset_and_link_assertions():
    img = np.zeros((3, 10, 10), np.float32)
    good = [(img, np.array([[0, 0, 5, 5]], np.float32), np.array([1], np.int32))]
    assert_is_bbox_dataset(good, n_fg_class=2)
    with pytest.raises(AssertionError, match=r"label must lie in \[0, 0\]"):
        assert_is_bbox_dataset(good, n_fg_class=1)
    assert_is_semantic_segmentation_dataset([(img, np.full((10, 10), -1, np.int32))], 3)

    class Detector:
        def predict(self, imgs):
            n = len(imgs)
            bbox = np.array([[0, 0, 5, 5]], np.float32)
            return (
                [bbox] * n,
                [np.array([0], np.int32)] * n,
                [np.array([0.5], np.float32)] * n,
            )

    assert_is_detection_link(Detector(), 1)

    class Broken(Detector):
        def predict(self, imgs):
            bboxes, labels, scores = super().predict(imgs)
            return bboxes, labels, [s.astype(np.float64) for s in scores]

    with pytest.raises(AssertionError, match="float32"):
        assert_is_detection_link(Broken(), 1)


def test_more_dataset_assertions():
    from kusari_cv.utils import (
        assert_is_instance_segmentation_dataset,
        assert_is_instance_segmentation_link,
        assert_is_label_dataset,
        assert_is_point_dataset,
        assert_is_semantic_segmentation_link,
    )

    img = np.zeros((3, 6, 8), np.float32)
    assert_is_label_dataset([(img, np.int32(2))], n_class=3)
    with pytest.raises(AssertionError, match=r"label must lie in \[0, 1\]"):
        assert_is_label_dataset([(img, np.int32(2))], n_class=2)
    mask = np.zeros((2, 6, 8), bool)
    assert_is_instance_segmentation_dataset(
        [(img, mask, np.array([0, 1], np.int32))], 2
    )
    with pytest.raises(AssertionError, match=r"mask must have shape \(R, H, W\)"):
        assert_is_instance_segmentation_dataset(
            [(img, mask[:, :3], np.array([0, 1], np.int32))], 2
        )
    point = np.array([[[1, 1], [5, 7]]], np.float32)
    assert_is_point_dataset([(img, point, np.array([[True, False]]))], n_point=2)
    with pytest.raises(AssertionError, match="inside the image"):
        assert_is_point_dataset([(img, point + 10)], no_visible=True)
    with pytest.raises(AssertionError, match="tuple of at least 3"):
        assert_is_instance_segmentation_dataset([(img, mask)], 2)

    class Segmenter:
        def predict(self, imgs):
            return [np.zeros(img.shape[1:], np.int32) for img in imgs]

    assert_is_semantic_segmentation_link(Segmenter(), 1)

    class InstanceSegmenter:
        def predict(self, imgs):
            masks = [np.zeros((1,) + img.shape[1:], bool) for img in imgs]
            n = len(imgs)
            return masks, [np.zeros(1, np.int32)] * n, [np.ones(1, np.float32)] * n

    assert_is_instance_segmentation_link(InstanceSegmenter(), 1)
