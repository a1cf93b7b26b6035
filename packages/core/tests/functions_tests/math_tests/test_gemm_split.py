"""GEMMs split into blocks on the pool: the block grid, values against
NumPy, the same bits at any pool size above one (and, for blocks of real
size, as the whole product one thread runs), the batched and accumulating
form the convolutions use, BLAS held for uncut products, and the paths left
alone (one thread, float16, mixed dtypes, small products)."""

from __future__ import annotations

import numpy as np
import pytest

from kusari.functions.math import _gemm_split as G
from kusari.utils import threads


@pytest.fixture
def gemm_blocks(gemm_blocks, monkeypatch):
    # conftest's fixture lowers the work per block; test-sized products also
    # need shorter blocks than MIN_BLOCK_LEN.
    monkeypatch.setattr(G, "MIN_BLOCK_LEN", 1)
    return gemm_blocks


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize(
    "m,n,k",
    [(100, 1000, 784), (1000, 784, 100), (100, 10, 1000), (33, 5, 7), (1, 40, 9)],
)
def test_blocks_cover_the_cut_axis(m, n, k):
    axis, ranges = G.blocks(m, n, k)
    length = n if axis else m
    assert ranges[0][0] == 0 and ranges[-1][1] == length
    for (_, hi), (lo, _) in zip(ranges, ranges[1:]):
        assert hi == lo
    assert len(ranges) <= G.MAX_BLOCKS
    for lo, hi in ranges[:-1]:
        assert (hi - lo) % G._ALIGN == 0
    if len(ranges) > 1:
        assert (m * n * k) // len(ranges) >= G.MIN_BLOCK_WORK // 2
        assert length // len(ranges) >= G.MIN_BLOCK_LEN // 2


@pytest.mark.parametrize(
    "m,n,k,count",
    [
        (100, 1000, 784, 4),  # the MLP's first layer: four blocks of 256
        (100, 500, 800, 2),  # LeNet's 800 -> 500: two of 256 (not four of 125)
        (512, 784, 4608, 2),  # ResNet-50's 3x3 at 7x7 (batch 16): two of 400
        (50, 6400, 500, 4),
        (100, 720, 800, 2),  # three would fit: rounded down to a power of two
        (100, 200, 8000, 1),  # shorter than two blocks of MIN_BLOCK_LEN
    ],
)
def test_block_counts(m, n, k, count):
    assert len(G.blocks(m, n, k)[1]) == count


def test_blocks_cut_the_axis_with_the_smaller_shared_operand():
    # Rows cut: each block packs b (k x n) again; columns cut: a (m x k).
    assert G.blocks(100, 1000, 784)[0] == 1
    assert G.blocks(1000, 100, 784)[0] == 0


def test_blocks_small_product_is_one_block():
    assert G.blocks(10, 10, 10)[1] == [(0, 10)]
    # Too few rows/columns to make two blocks.
    assert len(G.blocks(4096, 20, 4096)[1]) > 1
    assert len(G.blocks(20, 20, 1 << 20)[1]) == 1


def test_blocks_huge_product_is_left_to_blas():
    # BLAS's own threads win where packing per block costs more.
    assert len(G.blocks(2048, 2048, 1024)[1]) > 1
    assert len(G.blocks(4096, 4096, 4096)[1]) == 1


def test_blocks_do_not_depend_on_the_thread_count(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 2)
    two = G.blocks(300, 500, 400)
    monkeypatch.setattr(threads, "_num_threads", 7)
    assert G.blocks(300, 500, 400) == two


OPERANDS = {
    "plain": lambda a, b: (a, b),
    "a_fortran": lambda a, b: (np.asfortranarray(a), b),
    "b_transposed_view": lambda a, b: (a, np.ascontiguousarray(b.T).T),
    "a_strided": lambda a, b: (np.repeat(a, 2, axis=1)[:, ::2], b),
    "a_transposed_view": lambda a, b: (np.ascontiguousarray(a.T).T, b),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(
    "shape", [(70, 40, 30), (40, 70, 30), (1, 64, 20), (64, 1, 20)]
)
@pytest.mark.parametrize("layout", sorted(OPERANDS))
def test_values_match_numpy(dtype, shape, layout, gemm_blocks, monkeypatch):
    m, n, k = shape
    a, b = OPERANDS[layout](_rand((m, k), dtype, 0), _rand((k, n), dtype, 1))
    monkeypatch.setattr(threads, "_num_threads", 3)
    y = G.matmul(a, b)
    assert gemm_blocks, "expected the product to be split"
    assert y.dtype == dtype and y.shape == (m, n)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(y, a @ b, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(70, 40, 30), (40, 70, 300), (1, 64, 20)])
def test_same_bits_at_any_thread_count_above_one(
    dtype, shape, gemm_blocks, monkeypatch
):
    m, n, k = shape
    a, b = _rand((m, k), dtype, 2), _rand((k, n), dtype, 3)
    out = {}
    for nt in (2, 3, 5):
        monkeypatch.setattr(threads, "_num_threads", nt)
        out[nt] = G.matmul(a, b)
    assert len(gemm_blocks) == 3 and min(gemm_blocks) > 1
    np.testing.assert_array_equal(out[2], out[3])
    np.testing.assert_array_equal(out[2], out[5])
    # The blocks' values are those of one-thread BLAS calls on each block,
    # whichever pool thread ran them.
    axis, ranges = G.blocks(m, n, k)
    with threads.one_blas_thread():
        for lo, hi in ranges:
            want = a[lo:hi] @ b if axis == 0 else a @ b[:, lo:hi]
            got = out[3][lo:hi] if axis == 0 else out[3][:, lo:hi]
            np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "m,n,k",
    [(100, 1000, 784), (1000, 100, 784), (100, 500, 800), (500, 800, 100)]
    + [(50, 6400, 500), (512, 784, 576)],
)
def test_real_blocks_have_the_whole_products_bits(m, n, k, monkeypatch):
    # One thread runs the product whole; blocks of real size (the MLP's,
    # LeNet's and conv shapes, no lowered thresholds) must give its bits.
    a, b = _rand((m, k), np.float32, 20), _rand((k, n), np.float32, 21)
    assert len(G.blocks(m, n, k)[1]) > 1
    monkeypatch.setattr(threads, "_num_threads", 1)
    whole = G.matmul(a, b)
    monkeypatch.setattr(threads, "_num_threads", 2)
    np.testing.assert_array_equal(G.matmul(a, b), whole)


def test_one_thread_is_the_plain_product(gemm_blocks, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 1)
    a, b = _rand((70, 30), np.float32, 4), _rand((30, 40), np.float32, 5)
    np.testing.assert_array_equal(G.matmul(a, b), a @ b)
    out = np.empty((1, 70, 40), np.float32)
    G.matmul_into(a[None], b[None], out)
    np.testing.assert_array_equal(out[0], a @ b)
    assert gemm_blocks == []


@pytest.mark.parametrize("accumulate", [False, True])
@pytest.mark.parametrize(
    "shape", [(1, 900, 70, 530), (1, 50, 60, 1000), (2, 300, 90, 260), (1, 8, 9, 5)]
)
def test_matmul_into_batched(shape, accumulate, monkeypatch):
    # The convolutions' form: groups, b as a transposed view (the weight
    # gradients pass it so), and += for sums over chunks of samples; the
    # real MIN_BLOCK_LEN, so (8, 9, 5) and (300, 90, 260) stay whole.
    g, m, k, n = shape
    rng = np.random.default_rng(4)
    a = rng.standard_normal((g, m, k)).astype(np.float32)
    b = rng.standard_normal((g, n, k)).astype(np.float32).swapaxes(1, 2)
    base = rng.standard_normal((g, m, n)).astype(np.float32)
    expect = (base if accumulate else 0) + np.matmul(
        a.astype(np.float64), b.astype(np.float64)
    )
    monkeypatch.setattr(G, "MIN_BLOCK_WORK", 1)
    calls = []
    real = threads.parallel_for
    monkeypatch.setattr(
        threads, "parallel_for", lambda f, t: calls.append(t) or real(f, t)
    )
    out = {}
    for nt in (1, 2, 3):
        monkeypatch.setattr(threads, "_num_threads", nt)
        out[nt] = base.copy()
        G.matmul_into(a, b, out[nt], accumulate)
        np.testing.assert_allclose(out[nt], expect, rtol=1e-4, atol=1e-3)
    np.testing.assert_array_equal(out[2], out[3])
    blocks = len(G.blocks(m, n, k)[1])
    assert calls == ([g * blocks] * 2 if blocks > 1 else [])


@pytest.mark.parametrize(
    "dtypes",
    [(np.float16, np.float16), (np.float16, np.float32), (np.float32, np.float64)],
)
def test_float16_and_mixed_dtypes_keep_numpy(dtypes, gemm_blocks, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    a, b = _rand((70, 30), dtypes[0], 6), _rand((30, 40), dtypes[1], 7)
    y = G.matmul(a, b)
    assert gemm_blocks == []
    assert y.dtype == (a @ b).dtype
    np.testing.assert_array_equal(y, a @ b)


def test_small_product_is_not_split(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    calls = []
    monkeypatch.setattr(threads, "parallel_for", lambda f, n: calls.append(n))
    a, b = _rand((20, 30), np.float32, 8), _rand((30, 40), np.float32, 9)
    np.testing.assert_array_equal(G.matmul(a, b), a @ b)
    assert calls == []


def test_no_blas_control_keeps_numpy(gemm_blocks, monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    monkeypatch.setattr(threads, "blas_controller", lambda: None)
    a, b = _rand((70, 30), np.float32, 10), _rand((30, 40), np.float32, 11)
    np.testing.assert_array_equal(G.matmul(a, b), a @ b)
    assert gemm_blocks == []


def test_shape_mismatch_is_numpys_error(monkeypatch):
    monkeypatch.setattr(threads, "_num_threads", 3)
    with pytest.raises(ValueError):
        G.matmul(np.ones((3, 4), np.float32), np.ones((5, 6), np.float32))


def test_blas_held_at_one_and_restored_during_split(
    gemm_blocks, blas_holds, monkeypatch
):
    # blas_holds fakes the BLAS controller, so this runs whatever BLAS NumPy
    # has; the fixture also checks the thread count is restored afterwards
    # (utils_tests/test_threads.py checks the real library).
    monkeypatch.setattr(threads, "_num_threads", 3)
    G.matmul(_rand((70, 30), np.float32, 12), _rand((30, 40), np.float32, 13))
    assert gemm_blocks
    assert blas_holds


@pytest.mark.parametrize(
    "shape,held",
    [
        ((100, 500, 10), True),  # LeNet's last layer: not cut, BLAS held
        ((20, 20, 20), False),  # below OpenBLAS's own threading threshold
        ((20, 1 << 16, 20), False),  # large and uncut: BLAS's own threads
    ],
)
def test_uncut_products_hold_blas_on_a_threaded_pool(
    shape, held, blas_holds, monkeypatch
):
    m, k, n = shape
    a, b = _rand((m, k), np.float32, 14), _rand((k, n), np.float32, 15)
    assert len(G.blocks(m, n, k)[1]) == 1
    monkeypatch.setattr(threads, "_num_threads", 1)
    one = G.matmul(a, b)
    out = np.empty((1, m, n), np.float32)
    G.matmul_into(a[None], b[None], out)
    assert blas_holds == []  # one thread: BLAS is left as it is
    monkeypatch.setattr(threads, "_num_threads", 2)
    np.testing.assert_array_equal(G.matmul(a, b), one)
    G.matmul_into(a[None], b[None], out, accumulate=True)
    np.testing.assert_array_equal(out[0], 2 * one)
    assert blas_holds == ([1, 1] if held else [])


def test_matmul_cuts_at_most_max_matmul_blocks(gemm_blocks, monkeypatch):
    # 2-d products (Linear, F.matmul) take fewer blocks than the convolution
    # kernels' batched ones: the MLP's first layer in two, not four.
    assert len(G.blocks(100, 1000, 784)[1]) == 4
    assert len(G.blocks(100, 1000, 784, G.MAX_MATMUL_BLOCKS)[1]) == 2
    a, b = _rand((100, 784), np.float32, 30), _rand((784, 1000), np.float32, 31)
    monkeypatch.setattr(threads, "_num_threads", 1)
    whole = G.matmul(a, b)
    monkeypatch.setattr(threads, "_num_threads", 2)
    np.testing.assert_array_equal(G.matmul(a, b), whole)
    assert gemm_blocks == [G.MAX_MATMUL_BLOCKS]
    out = np.empty((1, 100, 1000), np.float32)
    G.matmul_into(a[None], b[None], out)  # the batched kernels keep four
    assert gemm_blocks[-1] == 4
    np.testing.assert_array_equal(out[0], whole)
