"""kusari.grad: Chainer v7's semantics of gradients with respect to chosen inputs."""

from __future__ import annotations

import numpy as np
import pytest

import kusari
import kusari.functions as F


def _v(*values: float) -> kusari.Variable:
    return kusari.Variable(np.array(values, np.float32))


def test_an_input_behind_another_gets_the_total_derivative() -> None:
    # x2 = 3 * x1 and y = x2 * x2 + x1: with respect to x1 the gradient runs
    # through x2 as well (dy/dx1 = 2 * x2 * 3 + 1), not only the direct path.
    x1 = _v(2.0)
    x2 = x1 * 3.0
    y = x2 * x2 + x1
    g1, g2 = kusari.grad([y], [x1, x2])
    np.testing.assert_allclose(g1.array, [2 * 6.0 * 3 + 1])
    np.testing.assert_allclose(g2.array, [2 * 6.0])


def test_grad_inputs_flow_on_to_the_inputs_behind() -> None:
    x1 = _v(1.0)
    x2 = x1 * 2.0
    y = x2 * 5.0
    g1, g2 = kusari.grad([y], [x1, x2], grad_inputs=[_v(1000.0), _v(100.0)])
    # x2's gradient (5, plus its initial 100) reaches x1 doubled.
    np.testing.assert_allclose(g2.array, [105.0])
    np.testing.assert_allclose(g1.array, [1000.0 + 2 * 105.0])


def test_only_the_subgraph_between_inputs_and_outputs_runs() -> None:
    w = _v(3.0)
    x = _v(2.0)
    h = x * 4.0
    y = h * w
    (gh,) = kusari.grad([y], [h], retain_grad=True)
    np.testing.assert_allclose(gh.array, [3.0])
    # Neither the inputs of h's creator nor the other factor get a gradient.
    assert x.grad is None and w.grad is None
    # retain_grad keeps the gradient of the input that has a creator.
    np.testing.assert_allclose(h.grad, [3.0])


def test_default_output_gradient_is_ones_of_any_shape() -> None:
    x = _v(1.0, 2.0, 3.0)
    y = x * x
    (gx,) = kusari.grad([y], [x])
    np.testing.assert_allclose(gx.array, [2.0, 4.0, 6.0])
    (gx,) = kusari.grad([y], [x], loss_scale=10.0)
    np.testing.assert_allclose(gx.array, [20.0, 40.0, 60.0])


def test_default_output_gradient_ignores_y_grad() -> None:
    x = _v(1.0, 2.0)
    y = x * 3.0
    y.grad = np.array([5.0, 5.0], np.float32)
    (gx,) = kusari.grad([y], [x])
    np.testing.assert_allclose(gx.array, [3.0, 3.0])


def test_double_backprop_through_a_non_scalar_gradient() -> None:
    x = _v(1.0, 2.0)
    (gx,) = kusari.grad([x * x * x], [x], enable_double_backprop=True)
    (ggx,) = kusari.grad([gx], [x])
    np.testing.assert_allclose(ggx.array, [6.0, 12.0])


@pytest.mark.parametrize(
    "args",
    [
        lambda x, y: (y, [x]),
        lambda x, y: ([y], x),
        lambda x, y: ([y], [x], y),
        lambda x, y: ([y], [x], None, x),
    ],
)
def test_arguments_must_be_sequences(args) -> None:  # type: ignore[no-untyped-def]
    x = _v(1.0)
    y = F.sum(x * x)
    with pytest.raises(TypeError, match="must be a tuple or a list"):
        kusari.grad(*args(x, y))
