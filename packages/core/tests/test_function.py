"""Old-style ``kusari.Function``: ownership, retention, unchain, rank, errors."""

import gc
import weakref

import numpy as np
import pytest

import kusari
import kusari.functions as F


class Scale(kusari.Function):
    """y0 = 2 * a, y1 = 3 * b; records what backward was handed."""

    def __init__(self, keep_inputs=None, keep_outputs=None):
        self.keep_inputs = keep_inputs
        self.keep_outputs = keep_outputs
        self.seen_inputs = None

    def forward(self, inputs):
        if self.keep_inputs is not None:
            self.retain_inputs(self.keep_inputs)
        if self.keep_outputs is not None:
            self.retain_outputs(self.keep_outputs)
        a, b = inputs
        return a * 2, b * 3

    def backward(self, inputs, grad_outputs):
        self.seen_inputs = inputs
        ga, gb = grad_outputs
        return (
            None if ga is None else ga * 2,
            None if gb is None else gb * 3,
        )


def _v(*values):
    return kusari.Variable(np.array(values, dtype=np.float32))


def test_creator_is_the_function_and_ranks_follow_inputs():
    a, b = _v(1.0), _v(2.0)
    a.node.rank = 1
    b.node.rank = 3
    f = Scale()
    ya, yb = f(a, b)
    for y in (ya, yb):
        assert y.creator is f
        assert y.rank == 4
        assert y.requires_grad
    assert f.rank == 3
    assert isinstance(f.outputs, tuple) and f.outputs[0]() is ya.node
    assert f.inputs == (a.node, b.node)


def test_call_on_arrays_needs_no_grad():
    f = Scale()
    ya, yb = f(np.ones(2, np.float32), np.ones(2, np.float32))
    assert not ya.requires_grad and not yb.requires_grad
    np.testing.assert_array_equal(yb.array, [3.0, 3.0])


def test_node_is_kept_by_the_graph_not_by_the_function():
    f = Scale()
    assert f.node is f.node and f.node.function is f
    node_ref = weakref.ref(f.node)
    ya, yb = f(_v(1.0), _v(1.0))
    assert ya.creator_node is node_ref()
    del ya, yb
    gc.collect()
    # The graph is gone and took the node with it: the function hands out a
    # fresh, unapplied one.
    assert node_ref() is None
    assert f.node.inputs is None and f.inputs is None


def test_unchain_cuts_outputs_and_drops_inputs():
    def apply():
        a, b = _v(1.0), _v(2.0)
        ya, _ = Scale()(a, b)
        return ya.creator, a, ya

    f, _a, ya = apply()
    ref_a, ref_b = f.outputs
    gc.collect()
    f.unchain()
    assert ref_a() is ya.node and ya.creator is None
    assert ref_b() is None
    assert f.inputs is None


def test_retain_inputs_keeps_only_the_listed_ones():
    a, b = _v(1.0), _v(5.0)
    nodes = (a.node, b.node)
    f = Scale(keep_inputs=(1,))
    ya, yb = f(a, b)
    del a, b
    gc.collect()
    assert nodes[0].data is None
    np.testing.assert_array_equal(nodes[1].data, [5.0])
    F.sum(ya + yb).backward()
    assert f.seen_inputs[0] is None
    np.testing.assert_array_equal(f.seen_inputs[1], [5.0])


def test_every_input_is_retained_by_default():
    f = Scale()
    ya, yb = f(_v(1.0), _v(5.0))
    F.sum(ya * yb).backward()
    np.testing.assert_array_equal(f.seen_inputs[0], [1.0])
    np.testing.assert_array_equal(f.seen_inputs[1], [5.0])


def test_output_data_holds_retained_outputs_only():
    f = Scale(keep_outputs=(1,))
    ya, yb = f(_v(1.0), _v(5.0))
    out = f.output_data
    assert out[0] is None
    np.testing.assert_array_equal(out[1], [15.0])


def test_retain_after_backward_is_deprecated():
    class Keep(kusari.Function):
        def forward(self, inputs):
            self.retain_outputs((0,), retain_after_backward=True)
            return (inputs[0] + 1,)

    with pytest.warns(DeprecationWarning, match="retain_after_backward"):
        Keep()(_v(1.0))


def test_backward_gets_plain_arrays_as_output_gradients():
    f = Scale()
    ya, _ = f(_v(1.0), _v(1.0))
    gxs = ya.creator_node.backward(
        (0, 1), (np.ones(1, np.float32), np.ones(1, np.float32))
    )
    np.testing.assert_array_equal(gxs[0].array, [2.0])
    np.testing.assert_array_equal(gxs[1].array, [3.0])


def test_gradient_of_wrong_shape_or_dtype_is_reported():
    class Bad(kusari.Function):
        def __init__(self, grad):
            self.grad = grad

        def forward(self, inputs):
            return (inputs[0] * 1,)

        def backward(self, inputs, grad_outputs):
            return (self.grad,)

    x = _v(1.0, 2.0)
    y = Bad(np.ones(3, np.float32))(x)
    with pytest.raises(ValueError, match="Shape of data and grad mismatch"):
        F.sum(y).backward()
    y = Bad(np.ones(2, np.float64))(x)
    with pytest.raises(TypeError, match="Dtype of data and grad mismatch"):
        F.sum(y).backward()


def test_second_derivative_through_old_style_function_fails_loudly():
    class Square(kusari.Function):
        def forward(self, inputs):
            return (inputs[0] ** 2,)

        def backward(self, inputs, grad_outputs):
            return (2 * inputs[0] * grad_outputs[0],)

    x = _v(3.0)
    y = Square()(x)
    y.backward(enable_double_backprop=True)
    np.testing.assert_allclose(x.grad, [6.0])
    with pytest.raises(RuntimeError, match='twice-differentiate .* "Square"'):
        x.grad_var.backward()
    with pytest.raises(RuntimeError, match="twice-differentiate"):
        kusari.grad([x.grad_var], [x])


@pytest.mark.parametrize("retain", [True, False])
def test_bad_gradient_is_reported_even_for_unretained_inputs(retain):
    class Dummy(kusari.Function):
        label = "dummy_function"

        def forward(self, inputs):
            if not retain:
                self.retain_inputs(())
            return (np.array(1, np.float32),)

        def backward(self, inputs, grad_outputs):
            return [1]  # a list of a non-array

    y = Dummy()(_v(1.0))
    with pytest.raises(TypeError, match=r"Function `Dummy` \(dummy_function\)"):
        y.backward()
