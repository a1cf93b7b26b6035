"""gradient_check catches wrong gradients and kinks."""

from __future__ import annotations

import numpy as np
import pytest

import kusari.functions as F
from kusari import FunctionNode, gradient_check


class WrongGrad(FunctionNode):
    """Forward is x**2 but backward claims 3x: must be caught."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] ** 2,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        return (3.0 * x * grad_outputs[0],)


class WrongDoubleGrad(FunctionNode):
    """First derivative right (2x), but its backward is not differentiable."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return (inputs[0] ** 2,)

    def backward(self, indexes, grad_outputs):
        (x,) = self.get_retained_inputs()
        from kusari import Variable

        return (Variable(2.0 * x.array) * grad_outputs[0],)


def test_numerical_grad_matches_analytic():
    x = np.random.uniform(-1, 1, (3,))
    gy = np.random.uniform(-1, 1, (3,))
    (gx,) = gradient_check.numerical_grad(lambda: (np.tanh(x),), (x,), (gy,), eps=1e-5)
    np.testing.assert_allclose(gx, (1 - np.tanh(x) ** 2) * gy, rtol=1e-6)


def test_numerical_grad_refuses_integer_inputs():
    # A step of eps means nothing on integers; Chainer raises rather than
    # returning a truncated difference quotient.
    xi = np.array([1, 2], np.int32)
    xf = np.ones(2)
    with pytest.raises(RuntimeError, match="must be kind of float.*int32"):
        gradient_check.numerical_grad(lambda: (xf * xi,), (xf, xi), (np.ones(2),))


def test_check_backward_skips_integer_inputs():
    x = np.random.uniform(-1, 1, (3,))
    k = np.array([2, 0, 1], np.int32)
    gradient_check.check_backward(
        lambda a, b: a * F.cast(b, a.dtype), (x, k), np.ones(3)
    )


def test_check_backward_passes_for_correct_function():
    x = np.random.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(F.tanh, x, np.random.uniform(-1, 1, (2, 3)))


def test_check_backward_catches_wrong_gradient():
    x = np.random.uniform(0.5, 1, (4,))
    with pytest.raises(AssertionError, match="check_backward failed"):
        gradient_check.check_backward(
            lambda v: WrongGrad().apply((v,))[0], x, np.ones(4)
        )


def test_check_double_backward_catches_wrong_second_order():
    x = np.random.uniform(0.5, 1, (4,))
    f = lambda v: WrongDoubleGrad().apply((v,))[0]  # noqa: E731
    gradient_check.check_backward(f, x, np.ones(4))
    with pytest.raises(AssertionError, match="check_backward failed"):
        gradient_check.check_double_backward(f, x, np.ones(4), np.ones(4))


def test_check_double_backward_passes_for_tanh():
    x = np.random.uniform(-1, 1, (3,))
    gradient_check.check_double_backward(
        F.tanh, x, np.random.uniform(-1, 1, (3,)), np.random.uniform(-1, 1, (3,))
    )


def test_nondifferentiable_point_is_detected():
    x = np.array([0.0, 1.0])
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.check_backward(
            F.relu, x, np.ones(2), detect_nondifferentiable=True
        )


def test_params_are_checked():
    from kusari import Parameter

    W = Parameter(np.random.uniform(-1, 1, (2, 3)))
    x = np.random.uniform(-1, 1, (4, 3))
    gradient_check.check_backward(
        lambda v: F.linear(v, W), x, np.random.uniform(-1, 1, (4, 2)), params=(W,)
    )


def test_scalar_output_without_y_grad():
    gradient_check.check_backward(lambda v: F.sum(v * v), np.random.rand(3), None)
    with pytest.raises(ValueError, match="not a scalar"):
        gradient_check.check_backward(lambda v: v * v, np.random.rand(3), None)


def test_curved_smooth_function_is_not_a_kink():
    gradient_check.check_backward(
        lambda v: v * v,
        np.array([0.05]),
        np.ones(1),
        eps=2e-2,
        detect_nondifferentiable=True,
    )


def test_non_differentiated_float_inputs_follow_dtype():
    from kusari.testing import check_op

    check_op(
        lambda x, t: x * t, None, [(2,), (2,)], dtype=np.float16, no_grads=[False, True]
    )


def test_check_backward_and_double_backward_with_a_gradient_left_out():
    # None for an output's gradient: that output takes no part in backprop
    # (Chainer's meaning), in first- and second-order checks alike.
    x = np.random.uniform(-1, 1, (2, 6))
    gys = (np.random.uniform(-1, 1, (2, 2)), None, np.random.uniform(-1, 1, (2, 2)))

    def f(x):
        return tuple(y * y for y in F.split_axis(x, 3, 1))

    gradient_check.check_backward(f, x, gys, dtype=np.float64)
    ggx = np.random.uniform(-1, 1, x.shape)
    gradient_check.check_double_backward(f, x, gys, ggx, dtype=np.float64)
    # A wrong gradient is still caught with a None among the others.
    with pytest.raises(AssertionError):
        gradient_check.check_backward(
            lambda x: tuple(WrongGrad().apply((y,))[0] for y in F.split_axis(x, 3, 1)),
            x,
            gys,
            dtype=np.float64,
        )


def test_dtype_float64_reaches_a_link_whose_params_stay_float32():
    # With dtype=float64 only the inputs are widened; the link's own float32
    # parameters meet float64 inputs on the numerical side, which runs with
    # type checks off (Chainer v7), so the check passes instead of raising.
    import kusari
    import kusari.links as L

    lin = L.Linear(3, 2)
    x = np.random.default_rng(0).uniform(-1, 1, (4, 3)).astype(np.float32)
    gy = np.random.default_rng(1).uniform(-1, 1, (4, 2)).astype(np.float32)
    gradient_check.check_backward(lin, x, gy, dtype=np.float64, atol=1e-4, rtol=1e-3)
    assert lin.W.dtype == np.float32
    # The switch is local to the numerical passes: a direct call still checks.
    from kusari.utils.type_check import InvalidType

    with pytest.raises(InvalidType):
        lin(x.astype(np.float64))
    assert kusari.config.type_check


def test_numerical_grad_runs_without_type_checks():
    import kusari

    seen = []

    def f():
        seen.append(kusari.config.type_check)
        return (x * 2,)

    x = np.ones(2)
    gradient_check.numerical_grad(f, (x,), (np.ones(2),))
    assert seen and not any(seen)
    assert kusari.config.type_check
