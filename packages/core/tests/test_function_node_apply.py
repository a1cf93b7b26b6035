"""FunctionNode.apply's shortcuts for one and two Variables, against its loop."""

from __future__ import annotations

import numpy as np
import pytest
from _function_node_helpers import Square

from kusari import FunctionNode, Variable
from kusari.variable import _new_variable


class _Product(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return (a * b,)

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        (gy,) = grad_outputs
        return tuple([gy * (b if i == 0 else a) for i in indexes])


def _chain(depth, requires_grad=True):
    v = Variable(np.full(3, 1.1, np.float32))
    for _ in range(depth):
        v = Square().apply((v,))[0]
    if not requires_grad:
        # A graph output that needs no gradient (as a user's custom node may
        # make one): its rank must not count.
        v._requires_grad = v.node.requires_grad = False
    return v


class TestApplyShortcuts:
    """apply's one- and two-Variable shortcuts record what the loop records."""

    @pytest.mark.parametrize(
        "req0,req1,depth0,depth1",
        [
            (True, True, 3, 5),
            (True, True, 5, 3),
            (True, False, 2, 4),
            (False, True, 4, 2),
            (False, False, 1, 1),
        ],
    )
    def test_binary_matches_the_general_path(self, req0, req1, depth0, depth1):
        results = []
        for as_tuple in (True, False):
            a = _chain(depth0, req0)
            b = _chain(depth1, req1)
            f = _Product()
            # A tuple takes the shortcut; a list takes the general loop.
            (y,) = f.apply((a, b) if as_tuple else [a, b])
            if not (req0 or req1):
                assert y.creator is None and not y.requires_grad
                results.append(None)
                continue
            assert f.inputs == (a.node, b.node)
            assert y.creator is f and y.node.rank == f.rank + 1
            y.grad = np.ones(3, np.float32)
            y.backward()
            results.append((f.rank, a.grad if req0 else None, b.grad if req1 else None))
        fast, general = results
        if fast is None:
            assert general is None
            return
        assert fast[0] == general[0]
        # The rank comes from the inputs that need a gradient only.
        want = max(d for r, d in ((req0, depth0), (req1, depth1)) if r)
        assert fast[0] == want
        for g_fast, g_general in zip(fast[1:], general[1:]):
            if g_fast is None:
                assert g_general is None
            else:
                np.testing.assert_array_equal(g_fast, g_general)

    def test_unary_gives_a_new_input_node_and_rank(self):
        # A variable the engine made (an output of a no-graph apply that
        # requires a gradient) has no node until a graph needs one; a user's
        # Variable has had its node from the start (as in Chainer).
        assert Variable(np.ones(1, np.float32))._node is not None
        x = _new_variable(np.full(2, 3.0, np.float32), True)
        assert x._node is None
        f = Square()
        (y,) = f.apply((x,))
        assert f.inputs == (x.node,) and f.rank == 0 and y.node.rank == 1
        (z,) = Square().apply((y,))
        assert z.node.rank == 2
        z.grad = np.ones(2, np.float32)
        z.backward()
        np.testing.assert_allclose(x.grad, 4 * 3.0**3 * np.ones(2))

    def test_unary_without_gradient_records_nothing(self):
        x = Variable(np.ones(2, np.float32), requires_grad=False)
        f = Square()
        (y,) = f.apply((x,))
        assert y.creator is None and not y.requires_grad and f.inputs is None

    @pytest.mark.parametrize("n_in", [1, 2])
    @pytest.mark.parametrize("keep", [(), (0,), (-1,)])
    def test_retained_indexes_are_honoured(self, n_in, keep):
        class Keep(FunctionNode):
            def forward(self, inputs):
                self.retain_inputs(keep)
                self.retain_outputs(keep)
                return (inputs[0] + inputs[-1],)

        xs = tuple(Variable(np.full(2, i + 1.0, np.float32)) for i in range(n_in))
        f = Keep()
        (y,) = f.apply(xs)
        kept = {i % n_in for i in keep}
        for i, node in enumerate(f.inputs):
            assert (node.data is xs[i].array) == (i in kept)
            if i not in kept:
                assert node.data is None
        assert f._retained_output_data == tuple(y.array for _ in keep)
