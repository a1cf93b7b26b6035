"""The BlackOut loss link (``BlackOut``)."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import link, variable
from kusari.functions.loss import black_out as black_out_module
from kusari.utils import walker_alias


class BlackOut(link.Link):
    """BlackOut loss layer (Ji et al., 2015).

    Negatives are drawn from the unigram distribution given by ``counts``.

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequency of each word (its length is the vocabulary size).
        sample_size: Number of negative samples per row.

    Attributes:
        W: Output embeddings, shape ``(len(counts), in_size)``. As in Chainer
            it has no initializer and starts filled with NaN: set
            ``W.array`` before use.
        sample_data: When not None, used as the negative samples instead of
            drawing them (for tests).

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> bo = L.BlackOut(3, [5, 2, 1], 2)
        >>> bo.W.array[...] = 0
        >>> loss = bo(np.ones((4, 3), np.float32), np.array([0, 1, 2, 0], np.int32))
        >>> loss.shape
        ()
    """

    sample_data: Any = None

    def __init__(self, in_size: int, counts: Any, sample_size: int) -> None:
        super().__init__()
        vocab_size = len(counts)
        p = numpy.array(counts, dtype=numpy.float32)
        self.sampler = walker_alias.WalkerAlias(p)
        self.sample_size = sample_size
        with self.init_scope():
            self.W = variable.Parameter(shape=(vocab_size, in_size))

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any) -> Any:
        if self.sample_data is not None:
            sample_data = self.sample_data
        else:
            sample_data = self.sampler.sample((x.shape[0], self.sample_size))
        samples = variable.Variable(sample_data, requires_grad=False)
        return black_out_module.black_out(x, t, self.W, samples)
