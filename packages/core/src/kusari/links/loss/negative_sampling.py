"""The negative sampling loss link (``NegativeSampling``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy

import kusari
from kusari import link, variable
from kusari.functions.loss import negative_sampling as ns_module
from kusari.utils import walker_alias


class NegativeSampling(link.Link):
    """Negative sampling loss layer (word2vec).

    Negatives are drawn from the unigram distribution raised to ``power``
    with a :class:`~kusari.utils.WalkerAlias` sampler.

    Args:
        in_size: Dimension of the input vectors.
        counts: Frequency of each word (its length is the vocabulary size).
        sample_size: Number of negative samples per row.
        power: Power applied to the frequencies.
        dtype: Dtype of ``W`` and of the sampling probabilities.

    Attributes:
        W: Output embeddings, shape ``(len(counts), in_size)``; zero at first.
        sampler: The :class:`~kusari.utils.WalkerAlias` sampler.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> ns = L.NegativeSampling(3, [5, 2, 1], 2)
        >>> loss = ns(np.ones((4, 3), np.float32), np.array([0, 1, 2, 0], np.int32))
        >>> round(float(loss.array), 4)  # W starts at zero: 4 * 3 * log 2
        8.3178
    """

    def __init__(
        self,
        in_size: int,
        counts: Any,
        sample_size: int,
        power: float = 0.75,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        dtype = numpy.dtype(kusari.get_dtype(dtype))
        vocab_size = len(counts)
        self.sample_size = sample_size
        p = numpy.array(counts, dtype)
        numpy.power(p, dtype.type(power), out=p)
        self.sampler = walker_alias.WalkerAlias(p)
        with self.init_scope():
            self.W = variable.Parameter(
                kusari.initializers.Zero(dtype), (vocab_size, in_size)
            )

    @property
    def printable_specs(self) -> Iterator[tuple[str, Any]]:
        yield "in_size", self.W.shape[1]
        yield "vocab_size", self.W.shape[0]
        yield "sample_size", self.sample_size

    def device_resident_accept(self, visitor: Any) -> None:
        super().device_resident_accept(visitor)
        self.sampler.device_resident_accept(visitor)

    def forward(self, x: Any, t: Any, reduce: str = "sum", **kwargs: Any) -> Any:
        """Compute the loss.

        Args:
            x: Input vectors, shape ``(N, in_size)``.
            t: Integer targets, shape ``(N,)``; ``-1`` rows are ignored.
            reduce: ``'sum'`` or ``'no'``.
            return_samples (bool): Also return the sampled word ids.
        """
        return_samples = kwargs.pop("return_samples", False)
        if kwargs:
            raise TypeError(
                "NegativeSampling.forward got unexpected keyword arguments: "
                + ", ".join(sorted(kwargs))
            )
        return ns_module.negative_sampling(
            x,
            t,
            self.W,
            self.sampler.sample,
            self.sample_size,
            reduce=reduce,
            return_samples=return_samples,
        )
