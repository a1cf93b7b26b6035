"""The orthogonal initializer (Saxe et al., https://arxiv.org/abs/1312.6120)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from kusari import backend, initializer
from kusari.initializer import DTypeLike
from kusari.initializers._random import to_numpy

# mode -> (require in_dim <= out_dim, require in_dim >= out_dim)
_MODES: dict[str, tuple[bool, bool]] = {
    "auto": (False, False),
    "projection": (False, True),
    "embedding": (True, False),
    "basis": (True, True),
}


class Orthogonal(initializer.Initializer):
    """Fills an array with a scaled (semi-)orthogonal matrix.

    The array is seen as a matrix of ``out_dim = shape[0]`` rows and
    ``in_dim = prod(shape[1:])`` columns. A Gaussian matrix is
    QR-decomposed (signs fixed so that the decomposition is unique) and the
    orthonormal factor, times ``scale``, is written: the rows are orthonormal
    when ``out_dim <= in_dim`` and the columns otherwise.

    Args:
        scale: Multiplier of the orthonormal matrix.
        dtype: Data type specifier.
        mode: Which shapes are accepted: ``'auto'`` (any),
            ``'projection'`` (``in_dim >= out_dim``), ``'embedding'``
            (``in_dim <= out_dim``) or ``'basis'`` (square).
        rng: Random generator; ``None`` uses ``numpy.random``.

    Example:
        >>> import numpy
        >>> a = numpy.empty((3, 5), dtype=numpy.float64)
        >>> Orthogonal(scale=1.0)(a)
        >>> numpy.allclose(a @ a.T, numpy.eye(3))
        True
    """

    def __init__(
        self,
        scale: float = 1.1,
        dtype: DTypeLike | None = None,
        mode: str = "auto",
        *,
        rng: Any = None,
    ) -> None:
        if mode not in _MODES:
            choices = ", ".join(repr(m) for m in _MODES)
            raise ValueError(f"Invalid mode: {mode!r}. Choose from {choices}.")
        self.scale = scale
        self.mode = mode
        self.rng = rng
        super().__init__(dtype)

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        xp = backend.get_array_module(array)
        rng = numpy.random if self.rng is None else self.rng
        if array.ndim == 0:
            # A 0-dim "orthogonal matrix" is +-1.
            draw = rng.integers(2) if hasattr(rng, "integers") else rng.randint(2)
            array[...] = self.scale * (2 * int(draw) - 1)
            return
        if array.size == 0:
            raise ValueError(
                f"Array to be initialized must be non-empty, got shape={array.shape}"
            )
        out_dim = array.shape[0]
        in_dim = math.prod(array.shape[1:])
        needs_embedding, needs_projection = _MODES[self.mode]
        if (in_dim > out_dim and needs_embedding) or (
            in_dim < out_dim and needs_projection
        ):
            raise ValueError(
                f"Cannot make orthogonal {self.mode}. shape = {array.shape}, "
                f"interpreted as {in_dim}-dim input and {out_dim}-dim output."
            )
        # QR of a tall matrix gives orthonormal columns, so wide ones go
        # through the transpose.
        transpose = in_dim > out_dim
        a = to_numpy(rng.normal(size=(out_dim, in_dim))).astype(numpy.float64)
        if transpose:
            a = a.T
        q, r = numpy.linalg.qr(a)
        # Signs of diag(R) made positive: Q is then Haar-distributed.
        q *= numpy.copysign(self.scale, numpy.diag(r))
        if transpose:
            q = q.T
        array[...] = xp.asarray(q.reshape(array.shape).astype(array.dtype))
