import numpy as np
import pytest

from kusari_cv.utils import non_maximum_suppression
from kusari_cv.utils.bbox import _nms_pairs, _nms_scan
from kusari_cv.utils.bbox import non_maximum_suppression as nms_module


def naive_nms(bbox, thresh, score=None, limit=None):
    """Greedy NMS written the obvious way."""
    order = (
        np.arange(len(bbox))
        if score is None
        else np.argsort(score, kind="stable")[::-1]
    )
    kept = []
    for i in order:
        ok = True
        for j in kept:
            p, q = bbox[i], bbox[j]
            h = max(0.0, min(p[2], q[2]) - max(p[0], q[0]))
            w = max(0.0, min(p[3], q[3]) - max(p[1], q[1]))
            inter = h * w
            union = (
                (p[2] - p[0]) * (p[3] - p[1]) + (q[2] - q[0]) * (q[3] - q[1]) - inter
            )
            if union > 0 and inter / union >= thresh:
                ok = False
                break
        if ok:
            kept.append(i)
            if limit is not None and len(kept) >= limit:
                break
    return np.array(kept, dtype=np.int32)


def random_boxes(rng, n, size=100, spread=300):
    tl = rng.uniform(0, spread, (n, 2))
    return np.concatenate((tl, tl + rng.uniform(1, size, (n, 2))), axis=1).astype(
        np.float32
    )


@pytest.mark.parametrize("n", [1, 5, 60, 400])
@pytest.mark.parametrize("thresh", [0.3, 0.7])
def test_against_naive(n, thresh):
    rng = np.random.default_rng(n)
    bbox = random_boxes(rng, n)
    score = rng.uniform(size=n).astype(np.float32)
    got = non_maximum_suppression(bbox, thresh, score)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, naive_nms(bbox, thresh, score))


def test_across_blocks(monkeypatch):
    # Small blocks exercise the screening against boxes kept in earlier
    # blocks, with chains of overlaps crossing block borders.
    monkeypatch.setattr(nms_module, "_BLOCK", 16)
    monkeypatch.setattr(_nms_scan, "GIVE_UP_KEPT", 0)
    monkeypatch.setattr(_nms_pairs, "MAX_PAIRS", 0)
    rng = np.random.default_rng(3)
    bbox = random_boxes(rng, 300, size=60, spread=120)
    score = rng.uniform(size=300).astype(np.float32)
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, 0.4, score), naive_nms(bbox, 0.4, score)
    )
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, 0.4, score, limit=7),
        naive_nms(bbox, 0.4, score, limit=7),
    )


def test_chain_of_overlaps():
    # Each box overlaps the next by IoU 0.6 and the one after by 1/3: the
    # greedy result keeps every other one, which a one-pass vectorised
    # suppression (dropping every box overlapped by any better one) would not.
    bbox = np.array([[0, 10 * i, 10, 10 * i + 40] for i in range(9)], np.float32)
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, 0.5), naive_nms(bbox, 0.5)
    )
    assert non_maximum_suppression(bbox, 0.5).tolist() == [0, 2, 4, 6, 8]


def test_without_score_keeps_the_given_order():
    bbox = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [50, 50, 60, 60]], np.float32)
    assert non_maximum_suppression(bbox, 0.5).tolist() == [0, 2]
    score = np.array([0.1, 0.9, 0.5], np.float32)
    assert non_maximum_suppression(bbox, 0.5, score).tolist() == [1, 2]


def test_threshold_is_inclusive():
    bbox = np.array([[0, 0, 10, 10], [0, 0, 10, 20]], np.float32)  # IoU 0.5
    assert non_maximum_suppression(bbox, 0.5).tolist() == [0]
    assert non_maximum_suppression(bbox, 0.51).tolist() == [0, 1]


def test_limit_and_empty():
    rng = np.random.default_rng(0)
    bbox = random_boxes(rng, 50, size=5, spread=1000)
    assert len(non_maximum_suppression(bbox, 0.5, limit=3)) == 3
    empty = non_maximum_suppression(np.zeros((0, 4), np.float32), 0.5)
    assert empty.shape == (0,) and empty.dtype == np.int32


def test_bad_input():
    with pytest.raises(
        ValueError,
        match=r"non_maximum_suppression: bbox must have shape \(R, 4\), got \(3, 5\)",
    ):
        non_maximum_suppression(np.zeros((3, 5)), 0.5)
    with pytest.raises(ValueError, match=r"score must have shape \(3,\)"):
        non_maximum_suppression(np.zeros((3, 4)), 0.5, np.zeros(2))


@pytest.mark.parametrize("max_pairs", [0, 50])
def test_crowded_boxes_fall_back_to_blocks(monkeypatch, max_pairs):
    # Too many candidate pairs: the dense blocked method takes over and
    # must agree.
    monkeypatch.setattr(_nms_pairs, "MAX_PAIRS", max_pairs)
    monkeypatch.setattr(_nms_scan, "GIVE_UP_KEPT", 0)
    monkeypatch.setattr(nms_module, "_BLOCK", 32)
    rng = np.random.default_rng(7)
    bbox = random_boxes(rng, 200, size=40, spread=60)
    score = rng.uniform(size=200).astype(np.float32)
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, 0.5, score), naive_nms(bbox, 0.5, score)
    )


def test_nonpositive_threshold_keeps_only_the_first():
    # IoU >= 0 holds for every pair of proper boxes, overlapping or not.
    bbox = np.array([[0, 0, 1, 1], [5, 5, 6, 6], [0, 0, 2, 2]], np.float32)
    assert non_maximum_suppression(bbox, 0.0).tolist() == [0]


def test_integer_and_float64_boxes():
    rng = np.random.default_rng(1)
    bbox = (random_boxes(rng, 80, size=30, spread=100)).astype(np.int64)
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, 0.4), naive_nms(bbox.astype(np.float64), 0.4)
    )


PATHS = {
    # scan to the end / give up at once for the pair graph / no pairs either,
    # so the blocked method.
    "scan": (10**9, 10**9),
    "pairs": (0, 10**9),
    "blocked": (0, 0),
}


@pytest.mark.parametrize("path", sorted(PATHS))
@pytest.mark.parametrize("thresh", [0.2, 0.5, 0.9])
def test_every_path_agrees_with_naive(monkeypatch, path, thresh):
    give_up, max_pairs = PATHS[path]
    monkeypatch.setattr(_nms_scan, "GIVE_UP_KEPT", give_up)
    monkeypatch.setattr(_nms_pairs, "MAX_PAIRS", max_pairs)
    monkeypatch.setattr(nms_module, "_BLOCK", 16)
    rng = np.random.default_rng(11)
    bbox = random_boxes(rng, 250, size=50, spread=150)
    bbox[:20] = bbox[20:40]  # exact duplicates (IoU 1)
    score = np.round(rng.uniform(size=250), 1).astype(np.float32)  # ties
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, thresh, score), naive_nms(bbox, thresh, score)
    )
    np.testing.assert_array_equal(
        non_maximum_suppression(bbox, thresh, score, limit=5),
        naive_nms(bbox, thresh, score, limit=5),
    )


def test_crowded_and_spread_layouts_pick_their_paths(monkeypatch):
    calls = []
    real_pairs = _nms_pairs.candidate_pairs
    monkeypatch.setattr(
        _nms_pairs, "candidate_pairs", lambda *a: calls.append(1) or real_pairs(*a)
    )
    rng = np.random.default_rng(2)
    centres = random_boxes(rng, 5, size=40, spread=400)
    crowded = centres[rng.integers(0, 5, 600)] + rng.normal(0, 1, (600, 4))
    crowded = crowded.astype(np.float32)
    score = rng.uniform(size=600).astype(np.float32)
    np.testing.assert_array_equal(
        non_maximum_suppression(crowded, 0.5, score), naive_nms(crowded, 0.5, score)
    )
    assert calls == []  # resolved by the scan alone
    spread = random_boxes(rng, 600, size=20, spread=2000)
    np.testing.assert_array_equal(
        non_maximum_suppression(spread, 0.5, score), naive_nms(spread, 0.5, score)
    )
    assert calls == [1]


class _NotNumpy:
    """Stands in for CuPy: same functions, but not ``numpy`` itself."""

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("seed", range(4))
def test_gpu_fixed_point_resolution_equals_sequential(seed):
    # The GPU path resolves a block by iterating the greedy map to its fixed
    # point; it must give the sequential answer, long chains included.
    rng = np.random.default_rng(seed)
    n = 60
    over = np.triu(rng.uniform(size=(n, n)) < 0.08, k=1)
    over[np.arange(n - 1), np.arange(1, n)] |= seed == 3  # one long chain
    sequential = nms_module._resolve_block(np, over)
    fixed_point = nms_module._resolve_block(_NotNumpy(), over)
    np.testing.assert_array_equal(fixed_point, sequential)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 7, 3000])
def test_score_order_is_stable_descending(dtype, n):
    from kusari_cv.utils.bbox._order import descending

    rng = np.random.default_rng(n)
    score = np.round(rng.normal(size=n), 1).astype(dtype)  # many ties
    if n > 4:
        score[:5] = [-0.0, 0.0, np.inf, -np.inf, -0.0]
    np.testing.assert_array_equal(
        descending(score), np.argsort(score, kind="stable")[::-1]
    )
    if n > 4:
        score[1] = np.nan  # NaN: the plain stable sort takes over
        np.testing.assert_array_equal(
            descending(score), np.argsort(score, kind="stable")[::-1]
        )
