"""check_op itself: it passes correct ops and fails broken ones."""

from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari import FunctionNode
from kusari.testing import assert_allclose, check_op, fix_random, product


class BadForward(FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 1.01,)


class WrongDtype(FunctionNode):
    def forward(self, inputs):
        return (inputs[0].astype(np.float64),)


def test_passes_correct_op(float_dtype):
    check_op(F.tanh, np.tanh, [(2, 3)], dtype=float_dtype)


def test_fails_wrong_forward():
    with pytest.raises(AssertionError, match="differs from the reference"):
        check_op(
            lambda x: BadForward().apply((x,))[0], lambda x: x, [(3,)], backward=False
        )


def test_fails_wrong_dtype():
    with pytest.raises(AssertionError, match="dtype float64, expected float32"):
        check_op(
            lambda x: WrongDtype().apply((x,))[0], lambda x: x, [(3,)], backward=False
        )


def test_fails_wrong_backward():
    class Wrong(FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 3.0,)

    with pytest.raises(AssertionError, match="check_backward failed"):
        check_op(
            lambda x: Wrong().apply((x,))[0],
            lambda x: x * 2,
            [(3,)],
            double_backward=False,
        )


def test_integer_inputs_are_not_differentiated():
    labels = np.array([0, 1, 1], np.int32)
    check_op(
        lambda x, t: F.softmax_cross_entropy(x, t),
        None,
        [(3, 2), labels],
        double_backward=False,
    )


def test_assert_allclose_message():
    with pytest.raises(AssertionError, match=r"worst at index \(1,\)"):
        assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 3.0]))


def test_fix_random_and_product():
    @fix_random()
    def draw():
        return np.random.rand()

    assert draw() == draw()
    assert product({"a": [1, 2], "b": [0]}) == [{"a": 1, "b": 0}, {"a": 2, "b": 0}]


def test_product_comma_joined_names_vary_together():
    # Chainer's tests pair names this way ('target,fan_option': [(A, x), ...]).
    got = product({"x,y": [(1, 2), (3, 4)], "z": [0, 5]})
    assert got == [
        {"x": 1, "y": 2, "z": 0},
        {"x": 1, "y": 2, "z": 5},
        {"x": 3, "y": 4, "z": 0},
        {"x": 3, "y": 4, "z": 5},
    ]
    with pytest.raises(ValueError, match="product: each value of 'x,y'"):
        product({"x,y": [(1, 2, 3)]})
    with pytest.raises(ValueError, match="must be a tuple of 2 values"):
        product({"x,y": [7]})


def test_fix_random_on_a_test_class():
    import io
    import unittest

    from kusari import testing

    drawn = []

    @testing.parameterize({"n": 1}, {"n": 2})
    @fix_random(seed=3)
    class Case(unittest.TestCase):
        def setUp(self):
            self.x = np.random.rand()  # drawn after the seed is set

        def test_draw(self):
            drawn.append((self.x, np.random.rand()))

    @fix_random(seed=3)  # above parameterize too
    @testing.parameterize({"n": 1})
    class Other(unittest.TestCase):
        def test_draw(self):
            drawn.append((np.random.rand(),))

    before = np.random.get_state()[1].copy()
    loader = unittest.defaultTestLoader
    suite = unittest.TestSuite(
        loader.loadTestsFromTestCase(c) for c in list(Case) + list(Other)
    )
    assert unittest.TextTestRunner(stream=io.StringIO()).run(suite).wasSuccessful()
    # The global state is what it was before the tests.
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    np.random.seed(3)
    expected = (np.random.rand(), np.random.rand())
    assert drawn == [expected, expected, expected[:1]]


def test_chainer_noncontiguous_helper_keeps_values_and_small_arrays() -> None:
    # Chainer's own tests call testing.array._as_noncontiguous_array and
    # reach utils.collections_abc; both exist under those names.
    from kusari import utils
    from kusari.testing import array as testing_array

    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    col = np.arange(3.0).reshape(3, 1)
    out = testing_array._as_noncontiguous_array([a, None, (col,)])
    assert isinstance(out, list) and out[1] is None and isinstance(out[2], tuple)
    for got, want in ((out[0], a), (out[2][0], col)):
        assert not got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
    one = np.ones((1, 1), np.float32)
    assert testing_array._as_noncontiguous_array(one) is one
    assert utils.collections_abc.Sequence is __import__("collections.abc").abc.Sequence
