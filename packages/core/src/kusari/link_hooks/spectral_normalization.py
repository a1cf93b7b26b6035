"""SpectralNormalization: divide a weight by its largest singular value."""

from __future__ import annotations

from typing import Any

import numpy

from kusari import backend, configuration, variable
from kusari.functions.array import reshape as reshape_module
from kusari.functions.array import transpose as transpose_module
from kusari.functions.math import matmul as matmul_module
from kusari.link_hooks._weight_hook import _WeightReplacingHook


def _l2normalize(xp: Any, v: Any, eps: float) -> Any:
    return v / (xp.linalg.norm(v) + eps)


def update_approximate_vectors(
    weight_matrix: Any, u: Any, n_power_iteration: int = 1, eps: float = 1e-12
) -> tuple[Any, Any]:
    """Runs power iteration on a 2-D weight from the left singular guess ``u``.

    Args:
        weight_matrix: 2-D Variable or array of shape ``(out, in)``.
        u: Array of shape ``(out,)``, the current left singular vector guess.
        n_power_iteration: Number of iterations.
        eps: Added to the norms before dividing.

    Returns:
        The new ``(u, v)`` arrays (left and right singular vector guesses).

    Example:
        >>> import numpy as np
        >>> W = np.diag([3.0, 1.0])
        >>> u, v = update_approximate_vectors(W, np.array([1.0, 1.0]), 20)
        >>> bool(np.allclose(abs(u), [1, 0], atol=1e-6))
        True
    """
    w = getattr(weight_matrix, "array", weight_matrix)
    xp = backend.get_array_module(w)
    v = None
    for _ in range(n_power_iteration):
        v = _l2normalize(xp, xp.dot(u, w), eps)
        u = _l2normalize(xp, xp.dot(w, v), eps)
    return u, v


def calculate_max_singular_value(weight_matrix: Any, u: Any, v: Any) -> Any:
    """``u^T W v`` as a 0-dim Variable (differentiable in ``W`` only)."""
    row = matmul_module.matmul(u[None, :], weight_matrix)
    sigma = matmul_module.matmul(row, v[:, None])
    return reshape_module.reshape(sigma, ())


class SpectralNormalization(_WeightReplacingHook):
    """Spectral normalization of a link's weight (Miyato et al., 2018).

    In every forward the link uses ``W / sigma(W)`` instead of ``W``, where
    ``sigma(W)`` is the largest singular value of ``W`` reshaped to
    ``(out, -1)`` (output units or channels first), estimated by power
    iteration. The left singular vector estimate is kept on the link as the
    persistent array ``<weight_name>_u`` (so it is serialized and moved
    between devices with the link) and refined by ``n_power_iteration`` steps
    per forward; it is only written back while ``config.train`` is True. The
    link's attribute stays the raw :class:`~kusari.Parameter` outside of
    forward, and gradients flow through the normalization into it.

    Add the hook before setting up the optimizer when ``use_gamma`` is True,
    so that the new ``gamma`` parameter is updated too.

    Args:
        n_power_iteration: Power iterations per forward (positive).
        eps: Added to norms in power iteration, for stability.
        use_gamma: Add a learnable scale ``link.gamma`` initialized with the
            largest singular value of the initial weight, so that the link
            uses ``gamma * W / sigma(W)``.
        factor: If given, ``sigma`` is divided by it (the weight is scaled by
            ``factor / sigma``).
        weight_name: Name of the weight attribute of the link.
        name: Name of the hook (``'SpectralNormalization'`` by default).

    Attributes:
        vector_name: Attribute name of ``u`` on the link.
        axis: Axis of the weight that holds the output units: 0, or 1 for
            deconvolutions.

    Works with :class:`~kusari.links.Linear`, the convolutions and
    deconvolutions, :class:`~kusari.links.EmbedID`, and other links whose
    weight is named by ``weight_name``.

    Example:
        >>> import numpy as np
        >>> import kusari.links as L
        >>> from kusari.link_hooks import SpectralNormalization
        >>> layer = L.Linear(4, 3).add_hook(SpectralNormalization())
        >>> layer.W_u.shape
        (3,)
        >>> layer(np.ones((2, 4), np.float32)).shape
        (2, 3)
        >>> type(layer.W).__name__
        'Parameter'
    """

    name = "SpectralNormalization"

    def __init__(
        self,
        n_power_iteration: int = 1,
        eps: float = 1e-12,
        use_gamma: bool = False,
        factor: float | None = None,
        weight_name: str = "W",
        name: str | None = None,
    ) -> None:
        if n_power_iteration < 1:
            raise ValueError(
                "SpectralNormalization: n_power_iteration must be positive, "
                f"got {n_power_iteration}"
            )
        super().__init__(weight_name, name)
        self.n_power_iteration = n_power_iteration
        self.eps = eps
        self.use_gamma = use_gamma
        self.factor = factor
        self.vector_name = weight_name + "_u"
        self.axis = 0
        self.v: Any = None

    def added(self, link: Any) -> None:
        from kusari.links.connection.deconvolution_2d import Deconvolution2D
        from kusari.links.connection.deconvolution_nd import DeconvolutionND

        if isinstance(link, (Deconvolution2D, DeconvolutionND)):
            self.axis = 1
        super().added(link)

    def deleted(self, link: Any) -> None:
        if link is None:
            return
        if self.vector_name in link.__dict__:
            delattr(link, self.vector_name)
        if self.use_gamma and "gamma" in link.__dict__:
            del link.gamma

    def reshape_W(self, W: Any) -> Any:
        """``W`` as a 2-D matrix with the output axis first."""
        if self.axis != 0:
            axes = (self.axis,) + tuple(i for i in range(W.ndim) if i != self.axis)
            W = transpose_module.transpose(W, axes)
        if W.ndim == 2:
            return W
        return reshape_module.reshape(W, (W.shape[0], -1))

    def _prepare(self, link: Any) -> None:
        W = getattr(link, self.weight_name)
        n_out = W.shape[self.axis]
        if n_out == 0:
            raise ValueError(
                f"SpectralNormalization: expected {self.weight_name}.shape"
                f"[{self.axis}] > 0, got shape {W.shape}"
            )
        xp = link.xp
        u = xp.asarray(numpy.random.normal(size=(n_out,)).astype(W.dtype))
        setattr(link, self.vector_name, u)
        link.register_persistent(self.vector_name)
        if self.use_gamma:
            w = W.array
            if self.axis != 0:
                w = xp.moveaxis(w, self.axis, 0)
            s = xp.linalg.svd(w.reshape(n_out, -1), compute_uv=False)
            with link.init_scope():
                link.gamma = variable.Parameter(xp.asarray(s[0], dtype=W.dtype))

    def normalize_weight(self, link: Any, W: Any = None) -> Any:
        """The normalized weight Variable; updates ``u`` in training mode."""
        if W is None:
            W = getattr(link, self.weight_name)
        weight_matrix = self.reshape_W(W)
        config = configuration.config
        recomputing = getattr(config, "in_recomputing", False)
        if recomputing and self.v is not None:
            u, v = getattr(link, self.vector_name), self.v
        else:
            u, v = update_approximate_vectors(
                weight_matrix,
                getattr(link, self.vector_name),
                self.n_power_iteration,
                self.eps,
            )
        sigma = calculate_max_singular_value(weight_matrix, u, v)
        if self.factor is not None:
            sigma = sigma / self.factor
        if self.use_gamma:
            W = link.gamma * W
        normalized = W / sigma
        if not recomputing:
            self.v = v
            if config.train:
                backend.copyto(getattr(link, self.vector_name), u)
        return normalized

    def _transform(self, link: Any, weight: Any) -> Any:
        return self.normalize_weight(link, weight)
