"""Long short-term memory unit as an activation function (``F.lstm``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend
from kusari.backends import cuda
from kusari.function_node import FunctionNode
from kusari.utils import type_check
from kusari.variable import Variable


def _extract_gates(x: Any) -> list[Any]:
    """Split ``x`` (B, 4H, ...) into the interleaved gates ``a, i, f, o``.

    Chainer's layout: unit ``k`` of gate ``g`` is column ``4 * k + g``.
    """
    r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
    return [r[:, :, g] for g in range(4)]


def _sigmoid(x: Any, xp: Any) -> Any:
    # 1 / (1 + exp(-x)): exp is cheaper than tanh; overflow gives the limit 0.
    with numpy.errstate(over="ignore"):
        y = xp.exp(-x)
        y += x.dtype.type(1)
        xp.reciprocal(y, out=y)
    return y


def _activations(x: Any, xp: Any) -> tuple[Any, Any, Any, Any]:
    a, i, f, o = _extract_gates(x)
    return xp.tanh(a), _sigmoid(i, xp), _sigmoid(f, xp), _sigmoid(o, xp)


# GPU: one thread per cell element reads its unit's four interleaved gates
# straight from x, so the whole step is one kernel instead of about a dozen.
_GPU_PREAMBLE = """
template <typename T> __device__ T kusari_lstm_sigmoid(T x) {
    const T half = 0.5;
    return tanh(x * half) * half + half;
}
"""
_GPU_GATES = """
    const ptrdiff_t b = i / hr;
    const ptrdiff_t k = (i - b * hr) / rs;
    const ptrdiff_t base = 4 * (b * hr + k * rs) + (i - b * hr - k * rs);
    const T aa = tanh(x[base]);
    const T ai = kusari_lstm_sigmoid(x[base + rs]);
    const T af = kusari_lstm_sigmoid(x[base + 2 * rs]);
    const T ao = kusari_lstm_sigmoid(x[base + 3 * rs]);
"""


def _gpu_forward() -> Any:
    return cuda.elementwise(
        "T c_prev, raw T x, int64 hr, int64 rs",
        "T c, T h",
        _GPU_GATES
        + """
        c = aa * ai + af * c_prev;
        h = ao * tanh(c);
        """,
        "kusari_lstm_fwd",
        preamble=_GPU_PREAMBLE,
    )


def _gpu_backward() -> Any:
    return cuda.elementwise(
        "T c_prev, raw T x, T gc, T gh, int64 hr, int64 rs",
        "T gc_prev, raw T gx",
        _GPU_GATES
        + """
        const T tc = tanh(aa * ai + af * c_prev);
        const T gct = gh * ao * (1 - tc * tc) + gc;
        gx[base] = gct * ai * (1 - aa * aa);
        gx[base + rs] = gct * aa * ai * (1 - ai);
        gx[base + 2 * rs] = gct * c_prev * af * (1 - af);
        gx[base + 3 * rs] = gh * tc * ao * (1 - ao);
        gc_prev = gct * af;
        """,
        "kusari_lstm_bwd",
        preamble=_GPU_PREAMBLE,
    )


def _unit_sizes(c: Any) -> tuple[int, int]:
    """(H * R, R) for a cell state of shape (B, H, *rest), R = prod(rest)."""
    rs = 1
    for n in c.shape[2:]:
        rs *= n
    return c.shape[1] * rs, rs


class LSTM(FunctionNode):
    """LSTM cell: inputs ``(c_prev, x)``, outputs ``(c, h)``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ("c", "x"))
        c_type, x_type = in_types
        type_check.expect(
            c_type.dtype.kind == "f",
            x_type.dtype == c_type.dtype,
            c_type.ndim >= 2,
            c_type.ndim == x_type.ndim,
            x_type.shape[0] <= c_type.shape[0],
            x_type.shape[1] == 4 * c_type.shape[1],
        )
        for k in range(2, type_check.eval(c_type.ndim)):
            type_check.expect(x_type.shape[k] == c_type.shape[k])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        c_prev, x = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        if xp is not numpy:
            c_next = xp.empty_like(c_prev)
            h = xp.empty((batch,) + c_prev.shape[1:], dtype=c_prev.dtype)
            _gpu_forward()(
                c_prev[:batch],
                xp.ascontiguousarray(x),
                *_unit_sizes(c_prev),
                c_next[:batch],
                h,
            )
            if batch < c_prev.shape[0]:
                c_next[batch:] = c_prev[batch:]
            return c_next, h
        a, i, f, o = _activations(x, xp)
        c_next = xp.empty_like(c_prev)
        c = c_next[:batch]
        xp.multiply(a, i, out=c)
        c += f * c_prev[:batch]
        h = xp.tanh(c)
        h *= o
        if batch < c_prev.shape[0]:
            c_next[batch:] = c_prev[batch:]
        return c_next, h

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        c_prev, x = self.get_retained_inputs()
        gc, gh = grad_outputs
        if gc is None:
            gc = Variable(backend.get_array_module(x.array).zeros_like(c_prev.array))
        if gh is None:
            xp = backend.get_array_module(x.array)
            shape = (x.shape[0],) + c_prev.shape[1:]
            gh = Variable(xp.zeros(shape, dtype=c_prev.dtype))
        return LSTMGrad().apply((c_prev, x, gc, gh))


def _grad_arrays(c_prev: Any, x: Any, gc: Any, gh: Any, xp: Any) -> tuple[Any, ...]:
    """Shared first-order computation; returns everything the grads need."""
    batch = x.shape[0]
    a, i, f, o = _activations(x, xp)
    cp = c_prev[:batch]
    c = a * i + f * cp
    tc = xp.tanh(c)
    one = x.dtype.type(1)
    gct = gh * o * (one - tc * tc) if gh is not None else xp.zeros_like(c)
    if gc is not None:
        gct += gc[:batch]
    return a, i, f, o, cp, tc, gct


def _pass_rest(gc_prev: Any, gc: Any, batch: int) -> None:
    """Rows past ``batch`` did not take part: their cell gradient passes through."""
    if batch < gc_prev.shape[0]:
        gc_prev[batch:] = 0 if gc is None else gc[batch:]


class LSTMGrad(FunctionNode):
    """Gradient of :class:`LSTM`.

    Inputs ``(c_prev, x, gc, gh)``, outputs ``(gc_prev, gx)``.

    Its own backward gives LSTM's double backprop.
    """

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1, 2, 3))
        c_prev, x, gc, gh = inputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        if xp is not numpy:
            return self._forward_gpu(c_prev, x, gc, gh, xp)
        a, i, f, o, cp, tc, gct = _grad_arrays(c_prev, x, gc, gh, xp)
        one = x.dtype.type(1)
        gx = xp.empty_like(x)
        ga, gi, gf, go = _extract_gates(gx)
        ga[...] = gct * i * (one - a * a)
        gi[...] = gct * a * i * (one - i)
        gf[...] = gct * cp * f * (one - f)
        if gh is not None:
            go[...] = gh * tc * o * (one - o)
        else:
            go[...] = 0
        gc_prev = xp.empty_like(c_prev)
        xp.multiply(gct, f, out=gc_prev[:batch])
        _pass_rest(gc_prev, gc, batch)
        return gc_prev, gx

    @staticmethod
    def _forward_gpu(c_prev: Any, x: Any, gc: Any, gh: Any, xp: Any) -> tuple[Any, Any]:
        batch = x.shape[0]
        cp = c_prev[:batch]
        gc_b = xp.zeros_like(cp) if gc is None else gc[:batch]
        gh_b = xp.zeros_like(cp) if gh is None else gh
        x = xp.ascontiguousarray(x)
        gx = xp.empty_like(x)
        gc_prev = xp.empty_like(c_prev)
        _gpu_backward()(cp, x, gc_b, gh_b, *_unit_sizes(c_prev), gc_prev[:batch], gx)
        _pass_rest(gc_prev, gc, batch)
        return gc_prev, gx

    def backward(self, indexes: Any, grad_outputs: Any) -> tuple[Any, ...]:
        c_prev_v, x_v, gc_v, gh_v = self.get_retained_inputs()
        c_prev, x = c_prev_v.array, x_v.array
        gc = None if gc_v is None else gc_v.array
        gh = None if gh_v is None else gh_v.array
        ggc_prev_v, ggx_v = grad_outputs
        xp = backend.get_array_module(x)
        batch = x.shape[0]
        dtype = x.dtype
        one = dtype.type(1)
        two = dtype.type(2)
        a, i, f, o, cp, tc, gct = _grad_arrays(c_prev, x, gc, gh, xp)
        ghb = gh if gh is not None else xp.zeros_like(cp)
        zeros = xp.zeros_like(cp)
        if ggc_prev_v is None:
            ggcp = zeros
            ggcp_rest = None
        else:
            ggcp = ggc_prev_v.array[:batch]
            ggcp_rest = ggc_prev_v.array[batch:]
        if ggx_v is None:
            gga = ggi = ggf = ggo = zeros
        else:
            gga, ggi, ggf, ggo = _extract_gates(ggx_v.array)
        da = one - a * a
        di = i * (one - i)
        df = f * (one - f)
        do = o * (one - o)
        tT = one - tc * tc
        # K: derivative of the loss w.r.t. gct (the total cell gradient).
        K = ggcp * f + gga * i * da + ggi * a * di + ggf * cp * df
        g_tc = ggo * ghb * do - two * K * ghb * o * tc
        g_c = g_tc * tT
        Ga = -two * gga * gct * i * a + ggi * gct * di + g_c * i
        Gi = gga * gct * da + ggi * gct * a * (one - two * i) + g_c * a
        Gf = ggcp * gct + ggf * gct * cp * (one - two * f) + g_c * cp
        Go = ggo * ghb * tc * (one - two * o) + K * ghb * tT
        Gcp = ggf * gct * df + g_c * f
        gx = xp.empty_like(x)
        ra, ri, rf, ro = _extract_gates(gx)
        ra[...] = Ga * da
        ri[...] = Gi * di
        rf[...] = Gf * df
        ro[...] = Go * do
        g_c_prev = xp.zeros_like(c_prev)
        g_c_prev[:batch] = Gcp
        ret: list[Any] = []
        for idx in indexes:
            if idx == 0:
                ret.append(Variable(g_c_prev))
            elif idx == 1:
                ret.append(Variable(gx))
            elif idx == 2:
                if gc_v is None:
                    ret.append(None)
                    continue
                g_gc = xp.zeros_like(c_prev)
                g_gc[:batch] = K
                if ggcp_rest is not None:
                    g_gc[batch:] = ggcp_rest
                ret.append(Variable(g_gc))
            else:
                if gh_v is None:
                    ret.append(None)
                    continue
                ret.append(Variable(K * o * tT + ggo * tc * do))
        return tuple(ret)


def lstm(c_prev: Any, x: Any) -> tuple[Variable, Variable]:
    """Long short-term memory unit with a forget gate.

    ``x`` (B, 4H) holds the pre-activations of the cell input ``a`` and the
    input, forget and output gates ``i, f, o`` *interleaved per unit*
    (Chainer's layout: ``a, i, f, o = x.reshape(B, H, 4).transpose(2, 0, 1)``).
    It computes ``c = tanh(a) sigmoid(i) + sigmoid(f) c_prev`` and
    ``h = sigmoid(o) tanh(c)``. When ``x`` has fewer rows than ``c_prev``,
    only ``c[:len(x)]`` is updated and the other rows are passed through.

    Args:
        c_prev: Previous cell state, shape (B, H, ...).
        x: Gate pre-activations, shape (B', 4H, ...) with B' <= B.

    Returns:
        ``(c, h)``: the new cell state (B, H, ...) and output (B', H, ...).

    Example:
        >>> import numpy as np
        >>> import kusari.functions as F
        >>> c, h = F.lstm(np.zeros((2, 3), np.float32), np.zeros((2, 12), np.float32))
        >>> c.shape, h.shape
        ((2, 3), (2, 3))
    """
    c, h = LSTM().apply((c_prev, x))
    return c, h
