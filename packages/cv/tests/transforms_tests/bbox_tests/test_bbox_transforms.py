import numpy as np
import pytest

from kusari_cv import transforms as T
from kusari_cv.utils import mask_to_bbox


def _box_mask(bbox, size):
    mask = np.zeros((len(bbox),) + size, bool)
    for m, (y0, x0, y1, x1) in zip(mask, bbox.astype(int)):
        m[y0:y1, x0:x1] = True
    return mask


BBOX = np.array([[1, 2, 4, 7], [0, 0, 6, 3], [3, 5, 6, 9]], np.float32)
SIZE = (6, 9)


@pytest.mark.parametrize("y_flip,x_flip", [(True, False), (False, True), (True, True)])
def test_flip_bbox_matches_flipped_masks(y_flip, x_flip):
    mask = _box_mask(BBOX, SIZE)
    flipped = T.flip(mask, y_flip=y_flip, x_flip=x_flip)
    np.testing.assert_array_equal(
        T.flip_bbox(BBOX, SIZE, y_flip, x_flip), mask_to_bbox(flipped)
    )


@pytest.mark.parametrize("angle", [0, 90, 180, 270, -90])
def test_rotate_bbox_matches_rotated_masks(angle):
    mask = _box_mask(BBOX, SIZE).astype(np.float32)
    rotated = T.rotate(mask, angle) > 0.5
    out = T.rotate_bbox(BBOX, angle, SIZE)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, mask_to_bbox(rotated))
    with pytest.raises(ValueError, match="rotate_bbox: angle must be a multiple of 90"):
        T.rotate_bbox(BBOX, 45, SIZE)


def test_resize_and_translate_bbox():
    out = T.resize_bbox(BBOX, SIZE, (12, 27))
    np.testing.assert_allclose(out, BBOX * [2, 3, 2, 3])
    np.testing.assert_allclose(T.translate_bbox(BBOX, 1, -2), BBOX + [1, -2, 1, -2])
    assert not np.shares_memory(out, BBOX)


def test_crop_bbox():
    bbox = np.array(
        [[0, 0, 3, 3], [2, 2, 8, 8], [6, 6, 9, 9], [1, 7, 3, 9]], np.float32
    )
    out, param = T.crop_bbox(bbox, slice(1, 5), slice(1, 6), return_param=True)
    np.testing.assert_array_equal(out, [[0, 0, 2, 2], [1, 1, 4, 5]])
    np.testing.assert_array_equal(param["index"], [0, 1])
    # Centre rule: box 0's centre (1.5, 1.5) is inside, box 1's (5, 5) is not.
    out = T.crop_bbox(bbox, slice(1, 5), slice(1, 6), allow_outside_center=False)
    np.testing.assert_array_equal(out, [[0, 0, 2, 2]])
    np.testing.assert_array_equal(
        T.crop_bbox(bbox, slice(2, None)),
        [[0, 0, 1, 3], [0, 2, 6, 8], [4, 6, 7, 9], [0, 7, 1, 9]],
    )


def test_bbox_shape_errors():
    bad = np.zeros((3, 5), np.float32)
    for f, args in [
        (T.flip_bbox, (SIZE,)),
        (T.resize_bbox, (SIZE, SIZE)),
        (T.translate_bbox, ()),
        (T.crop_bbox, ()),
        (T.rotate_bbox, (90, SIZE)),
    ]:
        with pytest.raises(
            ValueError, match=rf"{f.__name__}: bbox must have shape \(R, 4\)"
        ):
            f(bad, *args)
