"""Noisy networks (Fortunato et al., 2018) with factorised Gaussian noise."""

from __future__ import annotations

from typing import Any

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import initializers

__all__ = ["FactorizedNoisyLinear", "to_factorized_noisy"]


class FactorizedNoisyLinear(kusari.Chain):
    """Linear layer ``y = (mu_W + sigma_W * eps_W) x + mu_b + sigma_b * eps_b``.

    ``eps_W = f(eps_out) f(eps_in)^T`` with ``f(e) = sign(e) sqrt(|e|)``,
    fresh noise at every call. ``mu`` starts uniform in
    ``±1/sqrt(in_size)``, ``sigma`` at ``sigma_scale / sqrt(in_size)``.

    Args:
        mu_link: The :class:`kusari.links.Linear` to replace (its sizes and
            bias setting are used, not its values).
        sigma_scale: ``sigma_0`` of the paper.
    """

    def __init__(self, mu_link: L.Linear, sigma_scale: float = 0.4) -> None:
        super().__init__()
        if not isinstance(mu_link, L.Linear):
            raise TypeError(
                "FactorizedNoisyLinear: mu_link must be a Linear, got "
                f"{type(mu_link).__name__}"
            )
        self.out_size = mu_link.out_size
        self.nobias = mu_link.b is None
        self.sigma_scale = sigma_scale
        w = mu_link.W.array
        in_size = None if w is None else int(w.shape[1])
        with self.init_scope():
            self.mu = L.Linear(
                in_size,
                self.out_size,
                nobias=self.nobias,
                initialW=initializers.LeCunUniform(1 / np.sqrt(3)),
            )
            self.sigma = L.Linear(in_size, self.out_size, nobias=self.nobias)
        if in_size is not None:
            self._init_sigma(in_size)
        if w is not None:
            self.to_device(mu_link.device)

    def _init_sigma(self, in_size: int) -> None:
        value = self.sigma_scale / np.sqrt(in_size)
        self.sigma.W.array[...] = value
        if self.sigma.b is not None:
            self.sigma.b.array[...] = value

    def _noise(self, n: int, dtype: Any) -> Any:
        xp = self.xp
        r = xp.random.standard_normal(n).astype(dtype)
        return xp.copysign(xp.sqrt(xp.abs(r)), r)

    def forward(self, x: Any) -> Any:
        if self.mu.W.array is None:
            in_size = int(np.prod(x.shape[1:]))
            self.mu.W.initialize((self.out_size, in_size))
            self.sigma.W.initialize((self.out_size, in_size))
            self._init_sigma(in_size)
        out_size, in_size = self.sigma.W.shape
        dtype = self.sigma.W.dtype
        eps = self._noise(in_size + out_size, dtype)
        eps_in, eps_out = eps[:in_size], eps[in_size:]
        W = self.mu.W + self.sigma.W * self.xp.outer(eps_out, eps_in)
        if self.nobias:
            return F.linear(x, W)
        b = self.mu.b + self.sigma.b * eps_out
        return F.linear(x, W, b)


def to_factorized_noisy(link: kusari.Link, *args: Any, **kwargs: Any) -> None:
    """Replace every :class:`kusari.links.Linear` inside ``link`` by a
    :class:`FactorizedNoisyLinear`, in place.

    Children of Chains and ChainLists (including
    :class:`~kusari_rl.links.Sequence`, the DQN heads and the Q-functions of
    this package) are swapped in place, so the containers stay the same objects.

    Args:
        link: Root link; must not itself be a Linear.
        args, kwargs: Passed to :class:`FactorizedNoisyLinear`
            (e.g. ``sigma_scale=0.5``).

    Example:
        >>> from kusari_rl.links import MLP
        >>> net = MLP(4, 2, (8,))
        >>> to_factorized_noisy(net, sigma_scale=0.5)
        >>> type(net.output).__name__
        'FactorizedNoisyLinear'
    """
    if isinstance(link, L.Linear):
        raise TypeError(
            f"to_factorized_noisy: cannot replace the root link itself "
            f"({type(link).__name__}); wrap it in a kusari.Chain or "
            "kusari_rl.links.Sequence first"
        )
    _convert_children(link, args, kwargs)


def _converted(child: kusari.Link, args: Any, kwargs: Any) -> kusari.Link | None:
    """New link to put in place of ``child`` (None: keep it, converted in place)."""
    if isinstance(child, FactorizedNoisyLinear):
        return None
    if isinstance(child, L.Linear):
        return FactorizedNoisyLinear(child, *args, **kwargs)
    _convert_children(child, args, kwargs)
    return None


def _convert_children(link: kusari.Link, args: Any, kwargs: Any) -> None:
    if isinstance(link, kusari.ChainList):
        for index, child in enumerate(list(link)):
            new = _converted(child, args, kwargs)
            if new is not None:
                link[index] = new
    elif isinstance(link, kusari.Chain):
        for child in list(link.children()):
            new = _converted(child, args, kwargs)
            if new is not None:
                name = child.name
                assert name is not None
                delattr(link, name)
                link.add_link(name, new)
