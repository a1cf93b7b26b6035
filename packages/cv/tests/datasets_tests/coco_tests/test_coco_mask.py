import numpy as np
import pytest

from kusari_cv.datasets.coco.coco_mask import (
    decode_rle_string,
    encode_rle_string,
    mask_to_rle,
    polygons_to_mask,
    rle_to_mask,
    segmentation_to_mask,
)


def test_rle_is_column_major_and_starts_with_zeros():
    # Column-major pixels: (0,0)=0 (1,0)=1 (0,1)=1 (1,1)=0 (0,2)=0 (1,2)=0.
    mask = rle_to_mask({"size": [2, 3], "counts": [1, 2, 3]})
    np.testing.assert_array_equal(mask, [[0, 1, 0], [1, 0, 0]])
    assert mask.dtype == bool
    # A mask starting with a 1 has a leading zero-length run.
    assert mask_to_rle(np.ones((1, 2), bool))["counts"] == [0, 2]


def test_compressed_string_known_values():
    # 5 bits per char from '0'; 0x20 continues; counts after the third are
    # deltas to the count two places back.
    assert decode_rle_string("1") == [1]
    assert decode_rle_string("0P1") == [0, 32]  # '0'=0, 'P'=32|continue, '1'
    assert encode_rle_string([0, 32]) == "0P1"
    assert decode_rle_string(encode_rle_string([5, 3, 7, 2, 1])) == [5, 3, 7, 2, 1]
    # Negative deltas need the sign bit: 7 after 9 two places back is -2.
    assert decode_rle_string(encode_rle_string([1, 9, 2, 7])) == [1, 9, 2, 7]


def test_round_trip_random_masks():
    rng = np.random.default_rng(0)
    for _ in range(20):
        mask = rng.random((rng.integers(1, 9), rng.integers(1, 9))) > 0.5
        for compress in (False, True):
            np.testing.assert_array_equal(
                rle_to_mask(mask_to_rle(mask, compress)), mask
            )


def test_rle_errors():
    with pytest.raises(ValueError, match="sum to H"):
        rle_to_mask({"size": [2, 2], "counts": [1, 1]})
    with pytest.raises(ValueError, match="ends mid-number"):
        decode_rle_string("P")
    with pytest.raises(ValueError, match="polygons or an RLE dict"):
        segmentation_to_mask(3, 2, 2)


def test_polygon_rectangle_and_triangle():
    rect = polygons_to_mask([[1, 1, 6, 1, 6, 5, 1, 5]], 8, 10)
    expected = np.zeros((8, 10), bool)
    expected[1:5, 1:6] = True  # pixels whose centers lie inside
    np.testing.assert_array_equal(rect, expected)
    tri = polygons_to_mask([[2, 1, 8, 6, 1, 6]], 8, 10)
    np.testing.assert_array_equal(tri.sum(axis=1), [0, 1, 2, 4, 5, 6, 0, 0])
    # Two parts of one object are merged; parts outside the image are clipped.
    both = polygons_to_mask(
        [[0, 0, 2, 0, 2, 2, 0, 2], [8, 6, 12, 6, 12, 9, 8, 9]], 8, 10
    )
    assert both[0:2, 0:2].all() and both[6:8, 8:10].all() and both.sum() == 8
    with pytest.raises(ValueError, match="at least three"):
        polygons_to_mask([[0, 0, 1, 1]], 4, 4)


def _distance_to_edges(px, py, poly):
    xy = np.asarray(poly, float).reshape(-1, 2)
    a, b = xy, np.roll(xy, -1, axis=0)
    ab = b - a
    t = np.clip(((np.array([px, py]) - a) * ab).sum(1) / (ab * ab).sum(1), 0, 1)
    closest = a + t[:, None] * ab
    return np.hypot(*(closest - [px, py]).T).min()


# pycocotools' Cython code predates NumPy 2's __array__(copy=) protocol.
@pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")
def test_matches_pycocotools():
    coco_mask = pytest.importorskip("pycocotools.mask")
    rng = np.random.default_rng(1)
    H, W = 37, 53
    differing = total = 0
    for _ in range(30):
        n = int(rng.integers(3, 9))
        angles = np.sort(rng.uniform(0, 2 * np.pi, n))
        radii = rng.uniform(5, 15, n)
        cx, cy = rng.uniform(10, 40), rng.uniform(10, 25)
        poly = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1)
        poly = poly.ravel().tolist()
        ref = coco_mask.decode(coco_mask.frPyObjects([poly], H, W))[:, :, 0] > 0
        ours = polygons_to_mask([poly], H, W)
        # pycocotools rasterizes on a 5x upsampled grid: the two may differ
        # only on pixels that the boundary passes through.
        for y, x in zip(*np.nonzero(ref != ours), strict=True):
            assert _distance_to_edges(x + 0.5, y + 0.5, poly) < 1.0
        differing += (ref != ours).sum()
        total += ref.sum()
        # RLE: exact agreement, both ways.
        mask = rng.random((H, W)) > 0.7
        rle = coco_mask.encode(np.asfortranarray(mask.astype(np.uint8)))
        np.testing.assert_array_equal(rle_to_mask(rle), mask)
        assert mask_to_rle(mask, compress=True)["counts"] == rle["counts"].decode()
    assert differing / total < 0.05
