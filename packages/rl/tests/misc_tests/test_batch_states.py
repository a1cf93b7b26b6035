"""batch_states: the fast stacking and the identity-phi shortcut."""

from __future__ import annotations

import numpy as np
import pytest

from kusari_rl.misc.batch_states import batch_states, is_identity, stack_arrays


def test_stack_arrays_equals_asarray():
    rng = np.random.default_rng(0)
    for items in (
        [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(20)],
        [rng.integers(0, 255, (4,), dtype=np.uint8) for _ in range(9)],
        [np.float32(1.0)] * 12,
        list(range(10)),
        [rng.standard_normal(3) for _ in range(3)],  # few items: asarray
    ):
        got, want = stack_arrays(items), np.asarray(items)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    out = stack_arrays([np.zeros(3, np.float32)] * 10)
    out[0, 0] = 1.0  # a fresh, writable array
    assert out.flags.writeable


def test_stack_arrays_falls_back_for_mixed_or_strided_items():
    base = np.arange(40, dtype=np.float32).reshape(10, 4)
    strided = [base[i, ::2] for i in range(10)]
    np.testing.assert_array_equal(stack_arrays(strided), np.asarray(strided))
    mixed = [np.zeros(2, np.float32)] * 9 + [np.zeros(2, np.float64)]
    assert stack_arrays(mixed).dtype == np.float64
    with pytest.raises(ValueError):
        stack_arrays([np.zeros(2, np.float32)] * 9 + [np.zeros(3, np.float32)])


def test_is_identity():
    def ident(x):
        return x

    assert is_identity(None) and is_identity(lambda x: x) and is_identity(ident)
    assert not is_identity(lambda x: x * 2)
    assert not is_identity(lambda x, y=1: x)
    assert not is_identity(np.asarray)
    assert not is_identity(lambda *x: x)


def test_batch_states_applies_phi_and_tuples():
    states = [np.full(2, i, np.float32) for i in range(10)]
    np.testing.assert_array_equal(
        batch_states(states, np, lambda s: s + 1)[:, 0], np.arange(1, 11)
    )
    a, b = batch_states(states, np, lambda s: (s, s[:1]))
    assert a.shape == (10, 2) and b.shape == (10, 1)
