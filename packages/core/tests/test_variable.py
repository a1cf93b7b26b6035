"""Variable: construction, state, operators, gradients, graph surgery."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import kusari
import kusari.functions as F
from kusari import Variable


def _v(*values, dtype=np.float32, **kwargs):
    return Variable(np.array(values, dtype=dtype), **kwargs)


class TestConstruction:
    def test_wraps_array(self):
        a = np.arange(3, dtype=np.float32)
        v = Variable(a, name="x")
        assert v.array is a and v.data is a
        assert v.shape == (3,) and v.ndim == 1 and v.size == 3
        assert v.dtype == np.float32 and v.name == "x"
        assert v.requires_grad and v.grad is None and v.creator is None

    @pytest.mark.parametrize("bad", [1.0, [1.0, 2.0], np.float32(1)])
    def test_rejects_non_arrays(self, bad):
        with pytest.raises(TypeError, match="expected a NumPy or CuPy ndarray"):
            Variable(bad)

    def test_none_data(self):
        assert Variable().array is None

    def test_initial_grad_is_checked(self):
        with pytest.raises(ValueError, match="Shape of data and grad mismatch"):
            Variable(np.zeros(3, np.float32), grad=np.zeros(2, np.float32))
        # Chainer raises TypeError for a wrong dtype, ValueError for a shape.
        with pytest.raises(TypeError, match="Dtype of data and grad mismatch"):
            Variable(np.zeros(3, np.float32), grad=np.zeros(3, np.float64))
        with pytest.raises(TypeError, match="Type of grad is invalid"):
            Variable(np.zeros(3, np.float32), grad=[0.0, 0.0, 0.0])

    def test_requires_grad_false(self):
        v = Variable(np.zeros(2, np.float32), requires_grad=False)
        y = v * 2.0
        assert not v.requires_grad and y.creator is None


class TestOperators:
    @pytest.mark.parametrize(
        "op,ref",
        [
            (lambda a, b: a + b, np.add),
            (lambda a, b: a - b, np.subtract),
            (lambda a, b: a * b, np.multiply),
            (lambda a, b: a / b, np.divide),
            (lambda a, b: a**b, np.power),
        ],
    )
    def test_binary_with_broadcasting(self, op, ref):
        a = np.random.uniform(0.5, 1.5, (3, 4)).astype(np.float32)
        b = np.random.uniform(0.5, 1.5, (4,)).astype(np.float32)
        for lhs, rhs in [
            (Variable(a), Variable(b)),
            (Variable(a), b),
            (a, Variable(b)),
        ]:
            y = op(lhs, rhs)
            assert isinstance(y, Variable)
            np.testing.assert_allclose(y.array, ref(a, b), rtol=1e-6)
            assert y.dtype == np.float32

    @pytest.mark.parametrize(
        "op,ref",
        [
            (lambda x: x + 2, lambda a: a + 2),
            (lambda x: 2 + x, lambda a: 2 + a),
            (lambda x: x - 2, lambda a: a - 2),
            (lambda x: 2 - x, lambda a: 2 - a),
            (lambda x: x * 3.0, lambda a: a * 3),
            (lambda x: 3.0 * x, lambda a: 3 * a),
            (lambda x: x / 4, lambda a: a / 4),
            (lambda x: 4 / x, lambda a: 4 / a),
            (lambda x: x**2, lambda a: a**2),
            (lambda x: 2**x, lambda a: 2**a),
            (lambda x: x // 0.3, lambda a: a // np.float32(0.3)),
            (lambda x: 1.0 // x, lambda a: np.float32(1.0) // a),
            (lambda x: -x, lambda a: -a),
            (lambda x: abs(x), np.abs),
            (lambda x: x * np.float64(2), lambda a: a * 2),
        ],
    )
    def test_with_scalars_keeps_dtype(self, op, ref):
        a = np.random.uniform(0.5, 1.5, (2, 3)).astype(np.float32)
        y = op(Variable(a))
        assert y.dtype == np.float32
        np.testing.assert_allclose(y.array, ref(a).astype(np.float32), rtol=1e-5)

    def test_matmul_operator(self):
        a = np.random.rand(2, 3).astype(np.float32)
        b = np.random.rand(3, 4).astype(np.float32)
        np.testing.assert_allclose((Variable(a) @ b).array, a @ b, rtol=1e-6)
        np.testing.assert_allclose((a @ Variable(b)).array, a @ b, rtol=1e-6)

    def test_inplace_operator_makes_a_new_variable(self):
        x = _v(1.0, 2.0)
        y = x
        y += 1
        assert y is not x
        np.testing.assert_array_equal(x.array, [1.0, 2.0])

    def test_dtype_mismatch_is_a_type_error(self):
        with pytest.raises(
            kusari.type_check.InvalidType,
            match=r"(?s)_ \* _ \(Forward\).*Expect: lhs.dtype == rhs.dtype",
        ):
            _v(1.0) * _v(1.0, dtype=np.float64)

    def test_shape_mismatch_is_a_type_error(self):
        with pytest.raises(kusari.type_check.InvalidType, match="can be broadcast"):
            _v(1.0, 2.0) + _v(1.0, 2.0, 3.0)

    def test_bad_operand(self):
        with pytest.raises(
            TypeError, match="must be a Variable, an ndarray or a scalar"
        ):
            _v(1.0) + "a"

    @pytest.mark.parametrize(
        "op", ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]
    )
    def test_comparisons_raise(self, op):
        with pytest.raises(TypeError, match="does not support comparison"):
            getattr(_v(1.0), op)(_v(1.0))

    def test_bool_raises(self):
        with pytest.raises(TypeError, match="truth value"):
            bool(_v(1.0))

    def test_unhashable(self):
        with pytest.raises(TypeError):
            hash(_v(1.0))

    def test_len_getitem_reshape_transpose(self):
        x = Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
        assert len(x) == 2
        np.testing.assert_array_equal(x[1].array, [3, 4, 5])
        np.testing.assert_array_equal(x[:, [0, 2]].array, [[0, 2], [3, 5]])
        assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
        assert x.T.shape == (3, 2) and x.transpose(1, 0).shape == (3, 2)
        assert x.transpose().shape == (3, 2)
        with pytest.raises(TypeError, match="0-dimensional"):
            len(Variable(np.ones((), np.float32)))

    def test_item(self):
        assert _v(2.5).item() == 2.5
        with pytest.raises(ValueError, match="one-element"):
            _v(1.0, 2.0).item()

    def test_repr_and_str(self):
        assert repr(_v(1.0, 2.0)) == "variable([1., 2.])"
        assert repr(_v(1.0, name="w")) == "variable w([1.])"
        assert str(_v(1.0, 2.0)) == "variable([1. 2.])"
        assert repr(Variable()) == "variable(None)"

    @pytest.mark.parametrize(
        "shape, text",
        [
            ((0,), "variable([])"),
            ((0, 0), "variable([], shape=(0, 0))"),
            ((2, 0, 3), "variable([], shape=(2, 0, 3))"),
        ],
    )
    def test_repr_of_empty_arrays_shows_the_shape(self, shape, text):
        assert repr(Variable(np.zeros(shape, np.float32))) == text
        assert str(Variable(np.zeros(shape, np.float32))) == "variable([])"


class TestGradients:
    def test_scalar_backward_sets_leaf_grads(self):
        x = _v(1.0, 2.0, 3.0)
        y = F.sum(x * x * 0.5)
        y.backward()
        np.testing.assert_allclose(x.grad, [1, 2, 3])
        # The output's gradient is used up, as in Chainer v6+ ...
        assert y.grad is None
        # ... unless retain_grad keeps every gradient.
        y = F.sum(x * x * 0.5)
        y.backward(retain_grad=True)
        np.testing.assert_allclose(y.grad, 1.0)

    def test_backward_uses_up_a_given_output_gradient(self):
        x = _v(1.0, 2.0)
        y = x * 3.0
        y.grad = np.array([1.0, 2.0], np.float32)
        y.backward()
        assert y.grad is None and y.grad_var is None
        np.testing.assert_allclose(x.grad, [3.0, 6.0])

    def test_non_scalar_backward_needs_grad(self):
        x = _v(1.0, 2.0)
        y = x * 2.0
        with pytest.raises(ValueError, match=r"shape \(2,\).*Set `y.grad`"):
            y.backward()
        y.grad = np.ones(2, np.float32)
        y.backward()
        np.testing.assert_allclose(x.grad, [2, 2])

    def test_grads_accumulate_until_cleared(self):
        x = _v(1.0)
        for _ in range(2):
            F.sum(x * 3.0).backward()
        np.testing.assert_allclose(x.grad, [6.0])
        x.cleargrad()
        assert x.grad is None

    def test_zerograd_and_addgrad(self):
        x = _v(1.0, 2.0)
        with pytest.warns(DeprecationWarning, match="Use Variable.cleargrad"):
            x.zerograd()
        np.testing.assert_array_equal(x.grad, [0, 0])
        y = _v(3.0, 4.0)
        y.grad = np.ones(2, np.float32)
        x.addgrad(y)
        x.addgrad(y)
        np.testing.assert_array_equal(x.grad, [2, 2])

    def test_broadcast_gradients_are_summed(self):
        a = Variable(np.ones((3, 4), np.float32))
        b = Variable(np.ones((4,), np.float32))
        F.sum(a * b).backward()
        np.testing.assert_allclose(b.grad, np.full(4, 3.0))

    def test_shared_input_gets_both_contributions(self):
        x = _v(3.0)
        F.sum(x * x + x).backward()
        np.testing.assert_allclose(x.grad, [7.0])

    def test_retain_grad(self):
        x = _v(1.0, 2.0)
        h = x * 2.0
        y = F.sum(h * h)
        y.backward()
        assert h.grad is None
        x.cleargrad()
        h = x * 2.0
        y = F.sum(h * h)
        y.backward(retain_grad=True)
        np.testing.assert_allclose(h.grad, [4, 8])

    def test_loss_scale(self):
        x = _v(1.0, 2.0)
        F.sum(x * 3.0).backward(loss_scale=8.0)
        np.testing.assert_allclose(x.grad, [24, 24])
        assert x._loss_scale == 8.0

    def test_backward_on_leaf_is_a_noop(self):
        x = _v(1.0)
        x.backward()
        assert x.grad is None

    def test_no_graph_without_requires_grad_inputs(self):
        y = F.tanh(np.ones(2, np.float32))
        assert y.creator is None and not y.requires_grad


class TestGraphSurgery:
    def test_unchain(self):
        x = _v(1.0)
        h = x * 2.0
        h.unchain()
        assert h.creator is None
        F.sum(h * 3.0).backward()
        assert x.grad is None and h.grad is not None

    def test_truncated_bptt(self):
        """unchain_backward cuts the history: gradients stop at the cut."""
        w = _v(0.5)
        h = _v(1.0)
        for _ in range(5):
            h = F.tanh(h * w)
        loss1 = F.sum(h)
        loss1.backward()
        g_full = w.grad.copy()
        h.unchain_backward()
        assert h.creator is None
        w.cleargrad()
        for _ in range(2):
            h = F.tanh(h * w)
        F.sum(h).backward()
        # Only the two steps after the cut contribute now.
        h_ref = loss1.array.reshape(1)
        a1 = np.tanh(h_ref * 0.5)
        a2 = np.tanh(a1 * 0.5)
        expected = (1 - a2**2) * (a1 + 0.5 * (1 - a1**2) * h_ref)
        np.testing.assert_allclose(w.grad, expected, rtol=1e-5)
        assert not np.allclose(w.grad, g_full)


class TestCopyAndDevices:
    def test_copy_and_deepcopy_are_fresh_leaves(self):
        x = _v(1.0, 2.0)
        h = x * 2.0
        h2 = copy.deepcopy(h)
        assert h2.creator is None
        np.testing.assert_array_equal(h2.array, h.array)
        assert h2.array is not h.array
        h3 = copy.copy(h)
        assert h3.array is h.array and h3.creator is None

    def test_pickle(self):
        x = _v(1.0, 2.0, name="x")
        y = pickle.loads(pickle.dumps(x))
        np.testing.assert_array_equal(y.array, x.array)
        assert y.name == "x"

    def test_to_device_cpu(self):
        x = _v(1.0)
        x.grad = np.ones(1, np.float32)
        x.to_device("@numpy")
        x.to_cpu()
        assert isinstance(x.array, np.ndarray) and isinstance(x.grad, np.ndarray)
        assert x.device == kusari.get_device("@numpy")
        assert x.xp is np

    @pytest.mark.skipif(
        kusari.cuda.available,
        reason="checks the CPU-only error; CuPy is installed here",
    )
    def test_to_gpu_without_cupy(self):
        with pytest.raises(RuntimeError, match="CuPy could not be imported"):
            _v(1.0).to_gpu()


def test_as_variable_and_as_array():
    a = np.zeros(2, np.float32)
    v = kusari.as_variable(a)
    assert isinstance(v, Variable) and not v.requires_grad and v.array is a
    assert kusari.as_variable(v) is v
    assert kusari.as_array(v) is a and kusari.as_array(a) is a


def test_copydata_with_uninitialized_sides():
    dst = kusari.Parameter(kusari.initializers.Zero())
    src = Variable(np.arange(3, dtype=np.float32))
    dst.copydata(src)
    np.testing.assert_array_equal(dst.array, [0, 1, 2])
    assert dst.array is not src.array
    lazy = kusari.Parameter(kusari.initializers.One())
    Variable(np.zeros(2, np.float32)).copydata(lazy)
    assert lazy.shape == (2,)


def test_copy_of_lazy_parameter_keeps_its_device():
    import copy as copy_module

    p = kusari.Parameter(kusari.initializers.Zero())
    p.to_device("@numpy")
    q = copy_module.copy(p)
    assert q.array is None and q.device == kusari.get_device("@numpy")


def test_gradient_accumulation_never_writes_into_shared_arrays():
    """Sums of gradients may be updated in place only when the engine made them."""
    x = Variable(np.array([1.0, 2.0], np.float32))
    h = x * 1.0
    # Add's backward hands the very same gradient object to both inputs; the
    # retained intermediate gradient must stay what it was.
    y = F.sum((h + h) + h + h)
    y.backward(retain_grad=True)
    np.testing.assert_array_equal(h.grad, [4.0, 4.0])
    np.testing.assert_array_equal(x.grad, [4.0, 4.0])
    g = np.ones(2, np.float32)
    z = x * 2.0
    kusari.backward([z, z * 1.0, z * 1.0], [g, g, g])
    np.testing.assert_array_equal(g, [1.0, 1.0])  # caller's array untouched


class TestChainerCompatibility:
    """Behaviour that Chainer code observes directly (messages, formats)."""

    def test_summary_names_the_variable(self):
        assert Variable(np.zeros(1, np.float32), name="h").summary() == "<variable h>"
        v = Variable(np.zeros(1, np.float32))
        assert v.summary() == f"<variable at 0x{id(v):x}>"

    def test_debug_print_lines(self):
        data = np.arange(6, dtype=np.float32).reshape(2, 3)
        v = Variable(data, name="x")
        lines = v.debug_print().splitlines()
        assert lines == [
            "<variable x>",
            "- device: CPU",
            "- backend: <class 'numpy.ndarray'>",
            "- shape: (2, 3)",
            "- dtype: float32",
            f"- statistics: mean={data.mean():.8f}, std={data.std():.8f}",
            "- grad: None",
        ]
        v.grad = np.zeros_like(data)
        assert v.debug_print().splitlines()[-1] == "- grad: 0"
        v.grad = data * 2
        assert v.debug_print().splitlines()[-1] == (
            f"- grad: mean={(data * 2).mean():.8f}, std={(data * 2).std():.8f}"
        )

    def test_debug_print_of_an_empty_variable(self):
        text = Variable().debug_print()
        for field in ("device", "backend", "shape", "dtype", "statistics", "grad"):
            assert f"- {field}: None" in text

    def test_variable_node_refuses_a_gradient(self):
        v = _v(1.0)
        with pytest.raises(ValueError, match='unexpected keyword argument "grad"'):
            kusari.variable.VariableNode(v, "v", grad=np.ones(1, np.float32))
        with pytest.raises(TypeError, match="unexpected keyword arguments: foo"):
            kusari.variable.VariableNode(v, "v", foo=1)

    def test_set_creator_puts_the_variable_one_rank_above(self):
        class Mock(kusari.Function):
            pass

        f = Mock()
        f.node.rank = 10
        x = _v(1.0)
        x.set_creator(f)
        assert x.creator is f and x.rank == 11
        y = _v(1.0)
        y.set_creator_node(f.node)
        assert y.creator_node is f.node and y.rank == 11

    def test_addgrad_initializes_an_uninitialized_parameter(self):
        src = kusari.Parameter(np.ones((2, 3), np.float32))
        src.grad = np.full((2, 3), 2.0, np.float32)
        dst = kusari.Parameter(kusari.initializers.Zero())
        dst.cleargrad()  # no NaN gradient to start from
        dst.addgrad(src)
        np.testing.assert_array_equal(dst.array, np.zeros((2, 3)))
        np.testing.assert_array_equal(dst.grad, src.grad)
        assert dst.grad is not src.grad
        plain = Variable()
        with pytest.raises(RuntimeError, match="destination variable has no data"):
            plain.addgrad(src)

    def test_parameter_zerograd_is_deprecated_and_survives_initialize(self):
        p = kusari.Parameter(kusari.initializers.One())
        with pytest.warns(DeprecationWarning, match="Variable.zerograd"):
            p.zerograd()
        p.initialize((2,))
        np.testing.assert_array_equal(p.grad, [0.0, 0.0])


def test_a_set_grad_is_a_variable_that_double_backprop_differentiates():
    # As in Chainer v7, `y.grad = array` makes a grad_var that requires a
    # gradient, so a linear function's input gradient is itself part of a
    # graph under enable_double_backprop and can be differentiated again.
    x = _v(1.0, 2.0)
    y = F.copy(x, -1) * 3.0
    y.grad = np.array([1.0, -1.0], np.float32)
    gy = y.grad_var
    assert gy.requires_grad
    y.backward(enable_double_backprop=True)
    assert x.grad_var.requires_grad
    x.grad_var.grad = np.array([2.0, 5.0], np.float32)
    x.grad_var.backward()
    np.testing.assert_allclose(gy.grad, [6.0, 15.0])


def test_without_double_backprop_a_set_grad_builds_no_graph():
    x = _v(1.0, 2.0)
    y = x * 3.0
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert x.grad_var.creator is None
    np.testing.assert_allclose(x.grad, [3.0, 3.0])


def test_a_function_with_only_backward_accumulate_gets_gradients():
    # Chainer lets a FunctionNode define backward_accumulate instead of
    # backward; the engine still adds the result to earlier gradients.
    class Twice(kusari.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward_accumulate(self, targets, grad_outputs, grad_inputs):
            (g,) = grad_outputs
            (g_in,) = grad_inputs
            return (g * 2 if g_in is None else g * 2 + g_in,)

    x = Variable(np.ones(2, np.float32), grad=np.full(2, 10.0, np.float32))
    (y,) = Twice().apply((x,))
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_allclose(x.grad, [12.0, 12.0])
