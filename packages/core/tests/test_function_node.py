"""FunctionNode, old-style Function, grad/backward, hooks and graph memory."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from _function_node_helpers import Square

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import FunctionNode, Variable


class SplitHalves(FunctionNode):
    def forward_cpu(self, inputs):
        (x,) = inputs
        n = len(x) // 2
        return x[:n].copy(), x[n:].copy()

    def backward(self, indexes, grad_outputs):
        g0, g1 = grad_outputs
        n = self._n = len(self.inputs[0].shape and range(self.inputs[0].shape[0])) // 2
        xp = np
        z = Variable(xp.zeros(n, np.float32))
        g0 = z if g0 is None else g0
        g1 = z if g1 is None else g1
        return (
            F.reshape(F.broadcast_to(F.reshape(g0, (1, n)), (1, n)), (n,)) * 0
            + _concat(g0, g1),
        )


def _concat(a, b):
    n = a.shape[0]
    ea = F.matmul(np.eye(2 * n, n, dtype=np.float32), a)
    eb = F.matmul(np.eye(2 * n, n, k=-n, dtype=np.float32), b)
    return ea + eb


def _x(*v):
    return Variable(np.array(v, dtype=np.float32))


class TestApply:
    def test_outputs_and_graph(self):
        x = _x(1.0, 2.0)
        f = Square()
        (y,) = f.apply((x,))
        np.testing.assert_array_equal(y.array, [1, 4])
        assert y.creator is f and f.inputs[0] is x.node
        # Chainer's ranks: a function takes its inputs' highest rank, its
        # outputs one more.
        assert (x.rank, f.rank, y.rank) == (0, 0, 1)
        assert f.outputs[0]() is y.node
        (z,) = Square().apply((y,))
        assert (z.creator.rank, z.rank) == (1, 2)

    def test_accepts_arrays(self):
        (y,) = Square().apply((np.ones(2, np.float32),))
        assert isinstance(y, Variable) and y.creator is None

    def test_rejects_other_inputs(self):
        with pytest.raises(
            TypeError, match="Square: inputs must be Variables or ndarrays"
        ):
            Square().apply(([1.0],))

    def test_forward_must_return_a_tuple(self):
        class Bad(FunctionNode):
            def forward(self, inputs):
                return inputs[0]

        with pytest.raises(TypeError, match="Bad.forward must return a tuple"):
            Bad().apply((_x(1.0),))

    def test_forward_outputs_must_be_arrays(self):
        class Scalar(FunctionNode):
            def forward(self, inputs):
                return (inputs[0].sum(),)

        with pytest.raises(TypeError, match="force_array"):
            Scalar().apply((_x(1.0),))

    def test_type_check_message_names_the_function(self):
        with pytest.raises(kusari.type_check.InvalidType) as e:
            Square().apply((np.ones(2, np.int32),))
        assert "Invalid operation is performed in: Square (Forward)" in str(e.value)
        assert "Expect: x.dtype.kind == 'f'" in str(e.value)
        assert "Actual: 'i' != 'f'" in str(e.value)

    def test_type_check_can_be_turned_off(self):
        with kusari.using_config("type_check", False):
            (y,) = Square().apply((np.ones(2, np.int32),))
        assert y.dtype == np.int32

    def test_forward_cpu_dispatch(self):
        a, b = SplitHalves().apply((_x(1, 2, 3, 4),))
        np.testing.assert_array_equal(a.array, [1, 2])
        np.testing.assert_array_equal(b.array, [3, 4])

    def test_lazy_parameter_used_before_initialization(self):
        W = kusari.Parameter(kusari.initializers.Normal())
        with pytest.raises(RuntimeError, match="used before it was initialized"):
            F.linear(np.ones((1, 3), np.float32), W)

    def test_retained_outputs_survive_dropped_variables(self):
        x = _x(0.5)
        loss = F.sum(F.tanh(x) * 2.0)
        gc.collect()
        loss.backward()
        np.testing.assert_allclose(x.grad, 2 * (1 - np.tanh(0.5) ** 2), rtol=1e-6)

    def test_no_backprop_mode(self):
        x = _x(1.0)
        with kusari.no_backprop_mode():
            y = F.tanh(x)
            with kusari.force_backprop_mode():
                z = F.tanh(x)
        assert y.creator is None and z.creator is not None


class TestBackwardErrors:
    def test_wrong_number_of_gradients(self):
        class TooMany(FunctionNode):
            def forward(self, inputs):
                return (inputs[0] * 1,)

            def backward(self, indexes, grad_outputs):
                return grad_outputs[0], grad_outputs[0], grad_outputs[0]

        (y,) = TooMany().apply((_x(1.0),))
        with pytest.raises(ValueError, match="TooMany.backward returned 3 gradients"):
            F.sum(y).backward()

    def test_wrong_gradient_shape(self):
        class BadShape(FunctionNode):
            def forward(self, inputs):
                return (inputs[0] * 1,)

            def backward(self, indexes, grad_outputs):
                return (Variable(np.ones(5, np.float32)),)

        (y,) = BadShape().apply((_x(1.0, 2.0),))
        with pytest.raises(ValueError, match=r"(?s)`BadShape`.*Shape of data and grad"):
            F.sum(y).backward()

    def test_arrays_instead_of_variables(self):
        class ArrayGrad(FunctionNode):
            def forward(self, inputs):
                return (inputs[0] * 1,)

            def backward(self, indexes, grad_outputs):
                return (np.ones(1, np.float32),)

        (y,) = ArrayGrad().apply((_x(1.0),))
        with pytest.raises(TypeError, match="gradients must be Variables"):
            F.sum(y).backward()


class TestOldStyleFunction:
    def test_forward_backward_on_arrays(self):
        class Cube(kusari.Function):
            def forward_cpu(self, inputs):
                return (inputs[0] ** 3,)

            def backward_cpu(self, inputs, grad_outputs):
                return (3 * inputs[0] ** 2 * grad_outputs[0],)

        x = _x(2.0)
        y = Cube()(x)
        assert isinstance(y.creator, Cube)
        F.sum(y).backward()
        np.testing.assert_allclose(x.grad, [12.0])

    def test_retained_outputs(self):
        class Exp(kusari.Function):
            def forward(self, inputs):
                self.retain_outputs((0,))
                return (np.exp(inputs[0]),)

            def backward(self, inputs, grad_outputs):
                return (self.output_data[0] * grad_outputs[0],)

        x = _x(1.0)
        F.sum(Exp()(x)).backward()
        np.testing.assert_allclose(x.grad, [np.e], rtol=1e-6)

    def test_multiple_outputs(self):
        class Two(kusari.Function):
            def forward(self, inputs):
                return inputs[0] * 2, inputs[0] * 3

            def backward(self, inputs, grad_outputs):
                g = 0
                for k, gy in zip((2, 3), grad_outputs):
                    if gy is not None:
                        g = g + k * gy
                return (g,)

        x = _x(1.0)
        a, b = Two()(x)
        F.sum(a + b).backward()
        np.testing.assert_allclose(x.grad, [5.0])


class TestGradAndBackward:
    def test_grad_does_not_touch_grad_attributes(self):
        x = _x(3.0)
        y = x * x * x
        (gx,) = kusari.grad([y], [x])
        np.testing.assert_allclose(gx.array, [27.0])
        assert x.grad is None

    def test_grad_set_grad_and_unreachable(self):
        x, z = _x(1.0), _x(2.0)
        y = x * 5.0
        gx, gz = kusari.grad([y], [x, z], set_grad=True)
        assert gz is None
        np.testing.assert_allclose(x.grad, [5.0])

    def test_grad_stops_at_inputs(self):
        x = _x(2.0)
        h = x * x
        y = h * 3.0
        (gh,) = kusari.grad([y], [h])
        np.testing.assert_allclose(gh.array, [3.0])
        assert x.grad is None

    def test_grad_inputs_are_added(self):
        x = _x(1.0)
        (gx,) = kusari.grad([x * 2.0], [x], grad_inputs=[np.array([10.0], np.float32)])
        np.testing.assert_allclose(gx.array, [12.0])

    def test_grad_argument_errors(self):
        x = _x(1.0)
        with pytest.raises(TypeError, match="must be Variables"):
            kusari.grad([x.array], [x])
        with pytest.raises(ValueError, match="1 outputs but 2 grad_outputs"):
            kusari.grad([x * 2.0], [x], grad_outputs=[None, None])

    def test_double_backprop(self):
        x = _x(2.0)
        y = x * x * x
        (gx,) = kusari.grad([y], [x], enable_double_backprop=True)
        (ggx,) = kusari.grad([gx], [x])
        np.testing.assert_allclose(ggx.array, [12.0])

    def test_gradient_penalty(self):
        """WGAN-GP style: a loss on the input gradient trains the weights."""
        rng = np.random.default_rng(0)
        model = L.Linear(3, 1)
        x = Variable(rng.standard_normal((4, 3)).astype(np.float32))
        y = F.tanh(model(x))
        (gx,) = kusari.grad([F.sum(y)], [x], enable_double_backprop=True)
        penalty = F.sum(gx * gx)
        model.cleargrads()
        penalty.backward()
        # Reference by finite differences on W.
        W = model.W.array.astype(np.float64)
        b = model.b.array.astype(np.float64)
        xa = x.array.astype(np.float64)

        def pen(Wm):
            t = np.tanh(xa @ Wm.T + b)
            g = (1 - t**2) @ Wm
            return (g**2).sum()

        num = np.zeros_like(W)
        eps = 1e-6
        for idx in np.ndindex(W.shape):
            d = np.zeros_like(W)
            d[idx] = eps
            num[idx] = (pen(W + d) - pen(W - d)) / (2 * eps)
        np.testing.assert_allclose(model.W.grad, num, rtol=1e-3, atol=1e-4)

    def test_backward_many_outputs(self):
        x = _x(2.0)
        kusari.backward([x * x, x * 3.0])
        np.testing.assert_allclose(x.grad, [7.0])
        x.cleargrad()
        kusari.backward([x * x], [np.array([2.0], np.float32)])
        np.testing.assert_allclose(x.grad, [8.0])

    def test_lazy_grad_sum(self):
        x = _x(1.0)
        with kusari.using_config("lazy_grad_sum", True):
            F.sum(x * 2.0 + x * 3.0 + x).backward()
        np.testing.assert_allclose(x.grad, [6.0])


class TestHooks:
    def test_global_and_local_hooks(self):
        calls = []

        class Recorder(kusari.FunctionHook):
            name = "recorder"

            def forward_preprocess(self, function, in_data):
                calls.append(("fwd", function.label))

            def backward_postprocess(self, function, in_data, out_grad):
                calls.append(("bwd", function.label))

        x = _x(1.0)
        with Recorder():
            y = F.tanh(x)
        assert calls == [("fwd", "Tanh")]
        y.creator.add_hook(Recorder())
        F.sum(y).backward()
        assert ("bwd", "Tanh") in calls
        y.creator.delete_hook("recorder")
        with pytest.raises(KeyError):
            y.creator.delete_hook("recorder")


class TestMemory:
    def test_outputs_are_weak(self):
        x = _x(1.0)
        y = F.tanh(x)
        f = y.creator
        ref = weakref.ref(y)
        del y
        assert ref() is None
        assert f.outputs[0]() is None or f.outputs[0]()._variable() is None

    def test_backward_frees_retained_arrays_as_it_goes(self):
        x = _x(1.0, 2.0)
        h = F.tanh(x * 2.0)
        retained_ref = weakref.ref(h.array)  # kept by Tanh and by Mul below
        loss = F.sum(h * h)
        del h
        gc.collect()
        assert retained_ref() is not None
        loss.backward()
        assert retained_ref() is None
        np.testing.assert_allclose(
            x.grad,
            2 * np.tanh([2.0, 4.0]) * (1 - np.tanh([2.0, 4.0]) ** 2) * 2,
            rtol=1e-4,
        )

    def test_second_backward_through_freed_graph_is_an_error(self):
        x = _x(1.0)
        h = F.tanh(F.tanh(x) * 2.0)
        loss = F.sum(h)
        del h
        loss.backward()
        with pytest.raises(RuntimeError, match="freed by an earlier backward"):
            loss.backward()

    def test_retain_grad_keeps_the_graph(self):
        x = _x(1.0)
        loss = F.sum(F.tanh(F.tanh(x) * 2.0))
        loss.backward(retain_grad=True)
        loss.backward()
        assert x.grad is not None

    def test_shared_subgraph_needs_retain_grad(self):
        """Two losses sharing a subgraph, as in a GAN update."""
        x = _x(0.5)
        shared = F.tanh(x * 3.0)
        loss_a = F.sum(shared * 2.0)
        loss_b = F.sum(shared * shared)
        loss_a.backward()
        with pytest.raises(RuntimeError, match="retain_grad=True"):
            loss_b.backward()
        x = _x(0.5)
        shared = F.tanh(x * 3.0)
        loss_a = F.sum(shared * 2.0)
        loss_b = F.sum(shared * shared)
        loss_a.backward(retain_grad=True)
        g_a = x.grad.copy()
        x.cleargrad()
        loss_b.backward()
        t = np.tanh(1.5)
        np.testing.assert_allclose(g_a, [2 * 3 * (1 - t**2)], rtol=1e-5)
        np.testing.assert_allclose(x.grad, [2 * t * 3 * (1 - t**2)], rtol=1e-5)

    def test_truncated_bptt_after_freeing_backward(self):
        w = _x(0.9)
        h = _x(1.0)
        for _ in range(3):
            loss = 0
            for _ in range(4):
                h = F.tanh(h * w)
                loss = loss + F.sum(h)
            w.cleargrad()
            loss.backward()
            loss.unchain_backward()
            assert h.creator is None and w.grad is not None

    def test_training_step_leaves_no_graph_objects(self):
        gc.collect()
        gc.disable()
        try:
            model = L.Classifier(L.Linear(4, 3))
            x = np.random.rand(8, 4).astype(np.float32)
            t = np.random.randint(0, 3, 8).astype(np.int32)
            for _ in range(3):
                model.cleargrads()
                loss = model(x, t)
                loss.backward()
                for p in model.params():
                    p.array -= 0.1 * p.grad
            del loss
            model.y = model.loss = model.accuracy = None
            # issubclass on the type, not isinstance on each object: some
            # third-party module objects (torch's) warn when probed that way.
            live = [
                o
                for o in gc.get_objects()
                if issubclass(type(o), (kusari.FunctionNode, kusari.VariableNode))
            ]
            # Leaf parameters keep their own nodes; no function may survive.
            assert not [o for o in live if isinstance(o, kusari.FunctionNode)]
        finally:
            gc.enable()

    def test_no_reference_cycles_in_graph(self):
        gc.collect()
        gc.disable()
        try:
            x = _x(1.0, 2.0)
            loss = F.sum(F.tanh(x * 2.0) * 3.0)
            loss.backward()
            del loss
            assert gc.collect() == 0
        finally:
            gc.enable()


def test_config_change_inside_forward_does_not_cut_the_graph():
    class Recompute(FunctionNode):
        def forward(self, inputs):
            with kusari.no_backprop_mode():
                inner = F.tanh(inputs[0]).array  # refreshes the config snapshot
            return (inner * 1,)

        def backward(self, indexes, grad_outputs):
            return (grad_outputs[0] * 1.0,)

    x = _x(0.5)
    (y,) = Recompute().apply((x,))
    assert y.creator is not None
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [1.0])
