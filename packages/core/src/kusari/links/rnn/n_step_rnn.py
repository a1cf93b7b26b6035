"""Stacked RNN links over lists of variable-length sequences (NStep*)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from kusari import backend, variable
from kusari.functions.rnn import _ops
from kusari.functions.rnn.n_step_rnn import n_step_packed
from kusari.initializers import Normal, _get_initializer
from kusari.link import ChainList, Link


def _pack_plan(lengths: Sequence[int]) -> tuple[Any, Any, list[int], list[int]]:
    """Sorting and packing indices for sequences of the given lengths.

    Returns ``(order, pack, batch_sizes, sorted_lengths)``: ``order`` sorts
    the sequences by decreasing length; row ``k`` of the packed (time-major)
    array is row ``pack[k]`` of the sorted sequences concatenated.
    """
    lengths_a = numpy.asarray(lengths, dtype=numpy.int64)
    order = numpy.argsort(-lengths_a, kind="stable")
    sl = lengths_a[order]
    T = int(sl[0]) if len(sl) else 0
    batch_sizes = [int((sl > t).sum()) for t in range(T)]
    starts = numpy.concatenate([[0], numpy.cumsum(sl)[:-1]])
    t_idx = numpy.repeat(numpy.arange(T), batch_sizes)
    s_idx = (
        numpy.concatenate([numpy.arange(b) for b in batch_sizes])
        if T
        else numpy.zeros(0, numpy.int64)
    )
    pack = starts[s_idx] + t_idx
    return order, pack.astype(numpy.int64), batch_sizes, [int(v) for v in sl]


class NStepRNNBase(ChainList):
    """Base of the NStep links: a ChainList of one Link per layer and direction,
    each holding ``w0..w{n-1}`` and ``b0..b{n-1}`` (Chainer's names).

    Args:
        n_layers: Number of layers.
        in_size: Input size.
        out_size: Hidden size.
        dropout: Dropout ratio between layers.
        initialW: Initializer of the weights (default ``Normal(sqrt(1 / w_in))``).
        initial_bias: Initializer of the biases (default 0).
    """

    n_weights = 2
    use_bi_direction = False
    mode = "rnn_tanh"
    use_cell = False

    def __init__(
        self,
        n_layers: int,
        in_size: int,
        out_size: int,
        dropout: float,
        *,
        initialW: Any = None,
        initial_bias: Any = None,
        **kwargs: Any,
    ) -> None:
        if kwargs:
            for key in ("use_cudnn", "use_bi_direction", "activation"):
                if key in kwargs:
                    raise ValueError(
                        f"{type(self).__name__}: {key} argument is not "
                        "supported anymore"
                    )
            raise TypeError(
                f"{type(self).__name__}: unexpected arguments {sorted(kwargs)}"
            )
        direction = 2 if self.use_bi_direction else 1
        weights = []
        for i in range(n_layers):
            for _ in range(direction):
                weight = Link()
                with weight.init_scope():
                    for j in range(self.n_weights):
                        if i == 0 and j < self.n_weights // 2:
                            w_in = in_size
                        elif i > 0 and j < self.n_weights // 2:
                            w_in = out_size * direction
                        else:
                            w_in = out_size
                        w_init = (
                            Normal(numpy.sqrt(1.0 / w_in))
                            if initialW is None
                            else _get_initializer(initialW)
                        )
                        b_init = 0 if initial_bias is None else initial_bias
                        setattr(
                            weight,
                            f"w{j}",
                            variable.Parameter(w_init, (out_size, w_in)),
                        )
                        setattr(
                            weight,
                            f"b{j}",
                            variable.Parameter(_get_initializer(b_init), (out_size,)),
                        )
                weights.append(weight)
        super().__init__(*weights)
        self.n_layers = n_layers
        self.dropout = dropout
        self.out_size = out_size
        self.direction = direction

    @property
    def ws(self) -> list[list[Any]]:
        return [
            [getattr(layer, f"w{i}") for i in range(self.n_weights)] for layer in self
        ]

    @property
    def bs(self) -> list[list[Any]]:
        return [
            [getattr(layer, f"b{i}") for i in range(self.n_weights)] for layer in self
        ]

    @property
    def n_cells(self) -> int:
        return 2 if self.use_cell else 1

    def init_hx(self, xs: Sequence[Any]) -> variable.Variable:
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        with backend.using_device(self.device):
            return variable.Variable(self.xp.zeros(shape, dtype=xs[0].dtype))

    def _call(
        self, hs: Sequence[Any], xs: Sequence[Any]
    ) -> tuple[list[Any], list[Any]]:
        if not isinstance(xs, (list, tuple)):
            raise TypeError(
                f"{type(self).__name__}: xs must be a list of sequences, "
                f"got {type(xs).__name__}"
            )
        order, pack, batch_sizes, sl = _pack_plan([len(x) for x in xs])
        identity = bool((order == numpy.arange(len(order))).all())
        hxs = []
        for hx in hs:
            if hx is None:
                hx = self.init_hx(xs)
            elif not identity:
                hx = _ops.permute(hx, order, axis=1)
            hxs.append(hx)
        x_cat = _ops.concat([xs[int(k)] for k in order], 0)
        x = _ops.permute(x_cat, pack, 0)
        hy, cy, y = n_step_packed(
            type(self).__name__,
            self.mode,
            self.n_layers,
            self.dropout,
            hxs[0],
            hxs[1] if self.use_cell else None,
            self.ws,
            self.bs,
            x,
            batch_sizes,
            self.use_bi_direction,
        )
        inv_pack = numpy.empty_like(pack)
        inv_pack[pack] = numpy.arange(len(pack))
        y_cat = _ops.permute(y, inv_pack, 0)
        ys_sorted = _ops.split(y_cat, sl, 0)
        ys: list[Any] = [None] * len(xs)
        for k, i in enumerate(order):
            ys[int(i)] = ys_sorted[k]
        outs = [hy] + ([cy] if self.use_cell else [])
        if not identity:
            inv = numpy.empty_like(order)
            inv[order] = numpy.arange(len(order))
            outs = [_ops.permute(h, inv, axis=1) for h in outs]
        return outs, ys

    def forward(
        self, hx: Any, xs: Sequence[Any], **kwargs: Any
    ) -> tuple[Any, list[Any]]:
        """Run on ``xs`` (list of ``(L_i, in_size)`` sequences, any order).

        Returns ``(hy, ys)`` with ``ys[i]`` of shape ``(L_i, out_size * directions)``.
        """
        _check_train(type(self).__name__, kwargs)
        (hy,), ys = self._call([hx], xs)
        return hy, ys


def _check_train(name: str, kwargs: dict[str, Any]) -> None:
    if kwargs:
        if "train" in kwargs:
            raise ValueError(
                f"{name}: the train argument is not supported anymore; use "
                "kusari.using_config('train', ...)"
            )
        raise TypeError(f"{name}: unexpected arguments {sorted(kwargs)}")


class NStepRNNTanh(NStepRNNBase):
    """Stacked uni-directional tanh RNN for sequences (:func:`n_step_rnn`).

    Sorts and transposes the sequences itself: ``forward(hx, xs)`` takes a
    list of ``(L_i, in_size)`` arrays in any order.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> rnn = L.NStepRNNTanh(2, 3, 4, 0.0)
        >>> xs = [np.zeros((5, 3), np.float32), np.zeros((2, 3), np.float32)]
        >>> hy, ys = rnn(None, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(5, 4), (2, 4)])
    """

    mode = "rnn_tanh"


class NStepRNNReLU(NStepRNNBase):
    """Stacked uni-directional ReLU RNN for sequences (see :class:`NStepRNNTanh`).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> hy, ys = L.NStepRNNReLU(1, 3, 4, 0.0)(None, [np.zeros((2, 3), np.float32)])
        >>> ys[0].shape
        (2, 4)
    """

    mode = "rnn_relu"


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bi-directional tanh RNN for sequences (outputs ``2 * out_size`` wide).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> xs = [np.zeros((2, 3), np.float32)]
        >>> hy, ys = L.NStepBiRNNTanh(1, 3, 4, 0.0)(None, xs)
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    mode = "rnn_tanh"
    use_bi_direction = True


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bi-directional ReLU RNN for sequences.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> xs = [np.zeros((2, 3), np.float32)]
        >>> hy, ys = L.NStepBiRNNReLU(1, 3, 4, 0.0)(None, xs)
        >>> ys[0].shape
        (2, 8)
    """

    mode = "rnn_relu"
    use_bi_direction = True
