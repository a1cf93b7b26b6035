"""First-order backprop through FunctionNode.backward_array."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import FunctionNode, Variable


def _x(*v):
    return Variable(np.array(v, dtype=np.float32))


class TestBackwardArray:
    """First-order backprop runs backward_array on arrays where defined."""

    @staticmethod
    def _grads(fn, arrays, **kwargs):
        xs = [Variable(a) for a in arrays]
        y = fn(*xs)
        y.grad = np.ones_like(y.array)
        y.backward(**kwargs)
        return [x.grad for x in xs]

    @pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
    @pytest.mark.parametrize(
        "fn",
        [
            lambda a, b: a + b,
            lambda a, b: a - b,
            lambda a, b: a * b,
            lambda a, b: a / b,
            lambda a, b: a**b,
            lambda a, b: F.add(a, b, a),
            lambda a, b: -a * 2.0 + 1.5 - b / 3.0,
            lambda a, b: 2.0 / a - abs(b) ** 3,
            lambda a, b: 2.0**a * (1.0 - b),
            lambda a, b: a * a,
        ],
    )
    @pytest.mark.parametrize("shapes", [((3, 2), (3, 2)), ((3, 2), (2,)), ((), ())])
    def test_same_as_variable_backward(self, fn, shapes, dtype):
        rng = np.random.default_rng(0)
        arrays = [rng.uniform(0.5, 2.0, s).astype(dtype) for s in shapes]
        fast = self._grads(fn, arrays)
        # Double backprop runs the Variable backward.
        slow = self._grads(fn, arrays, enable_double_backprop=True)
        for f, s, a in zip(fast, slow, arrays):
            if s is None:  # an input the function does not use
                assert f is None
                continue
            assert type(f) is np.ndarray  # not a NumPy scalar for 0-dim
            assert f.dtype == a.dtype and f.shape == a.shape
            np.testing.assert_array_equal(f, s)

    @pytest.mark.parametrize("value", [np.float32(0.1), 0.1, 3])
    def test_numpy_scalar_constant(self, value):
        bm = kusari.functions.math.basic_math

        def fn(a):
            return bm.MulConstant(value).apply((a,))[0]

        arrays = [np.arange(3, dtype=np.float32)]
        fast = self._grads(fn, arrays)
        slow = self._grads(fn, arrays, enable_double_backprop=True)
        assert fast[0].dtype == slow[0].dtype
        np.testing.assert_array_equal(fast[0], slow[0])

    def test_subclass_overriding_backward_only(self):
        class DoubledMul(kusari.functions.math.basic_math.Mul):
            def backward(self, indexes, grad_outputs):
                return tuple(2 * g for g in super().backward(indexes, grad_outputs))

        assert not DoubledMul._has_backward_array
        assert kusari.functions.math.basic_math.Mul._has_backward_array
        a, b = _x(2.0), _x(3.0)
        DoubledMul().apply((a, b))[0].backward()
        assert a.grad[0] == 6.0 and b.grad[0] == 4.0

    def test_not_used_with_hooks(self):
        calls = []

        class Hook(kusari.FunctionHook):
            def backward_preprocess(self, function, in_data, out_grad):
                calls.append(function.label)

        a, b = _x(2.0), _x(3.0)
        with Hook():
            (a * b).backward()
        assert calls == ["_ * _"]
        assert a.grad[0] == 3.0

    def test_wrong_return_type(self):
        class Bad(FunctionNode):
            def forward(self, inputs):
                return (inputs[0] * 2,)

            def backward_array(self, indexes, grad_outputs):
                return ([1.0],)

        x = _x(1.0)
        with pytest.raises(TypeError, match="backward_array returned list"):
            Bad().apply((x,))[0].backward()

    def test_retain_grad_and_second_backward(self):
        x = _x(0.5)
        h = x * 3.0
        y = h * h
        y.backward(retain_grad=True)
        assert isinstance(h.grad_var, Variable)
        np.testing.assert_allclose(h.grad, [3.0])
        x.cleargrad()
        y.backward()
        np.testing.assert_allclose(x.grad, [9.0])
        with pytest.raises(RuntimeError, match="retain_grad=True"):
            y.backward()
