"""Copy parameters between links of the same structure (target networks)."""

from __future__ import annotations

import weakref

import numpy as np

import kusari
import kusari.links as L

__all__ = ["copy_grad", "copy_param", "soft_copy_param"]


def _target_params(target_link: kusari.Link, source_link: kusari.Link) -> dict:
    target = dict(target_link.namedparams())
    for name, param in source_link.namedparams():
        if name not in target:
            raise KeyError(
                f"copy_param: source parameter {name!r} is missing from the target"
            )
        if target[name].array is None and param.array is not None:
            # A lazily initialised target that has not run yet: give it the
            # source's shape so that the copy below can fill it.
            target[name].initialize(param.shape)
    return target


def copy_param(target_link: kusari.Link, source_link: kusari.Link) -> None:
    """Copy every parameter (and BatchNormalization statistics) of ``source_link``
    into ``target_link`` in place."""
    target = _target_params(target_link, source_link)
    for name, param in source_link.namedparams():
        if param.array is None:
            continue
        target[name].array[...] = param.array
    _copy_bn_stats(target_link, source_link, 1.0)


def soft_copy_param(
    target_link: kusari.Link, source_link: kusari.Link, tau: float
) -> None:
    """Polyak update: ``target = tau * source + (1 - tau) * target``.

    Called every update step by DDPG, TD3 and SAC, so the pairing of target
    and source arrays is remembered per target link and, on CPU, the update
    runs over one flat buffer per side when it can (see :class:`_PolyakPlan`);
    the result is the same as updating parameter by parameter.
    """
    plan = _plans.get(target_link)
    if plan is None or not plan.still_valid(source_link):
        plan = _PolyakPlan(target_link, source_link)
        _plans[target_link] = plan
    plan.run(tau)


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _flat_span(arrays: list[np.ndarray]) -> np.ndarray | None:
    """A 1-D array whose consecutive slices are ``arrays``, in order, or None.

    A fused optimizer packs the parameters it updates into one buffer, each
    ``Parameter.array`` a view into it; when the views tile a stretch of that
    buffer in parameter order, the stretch stands for all of them.
    """
    base = arrays[0].base
    if (
        type(base) is not np.ndarray
        or base.ndim != 1
        or not base.flags.c_contiguous
        or base.dtype != arrays[0].dtype
    ):
        return None
    item = base.itemsize
    offset, rem = divmod(_address(arrays[0]) - _address(base), item)
    if rem or offset < 0:
        return None
    pos = offset
    for a in arrays:
        if (
            a.base is not base
            or not a.flags.c_contiguous
            or _address(a) != _address(base) + pos * item
        ):
            return None
        pos += a.size
    return base[offset:pos]


class _PolyakPlan:
    """Pairs of (target, source) arrays of one soft update, checked each call.

    On CPU, when the source arrays tile one flat buffer (a fused optimizer's)
    and the target arrays either do too or are plain arrays of the same
    dtype (then they are moved into a buffer of their own, each
    ``Parameter.array`` a view of it, as a fused optimizer does), the update
    is three NumPy calls over the whole buffer. Otherwise it goes parameter
    by parameter. Anything that replaces an array (a deserializer,
    ``to_device``, an optimizer re-packing) invalidates the plan, and the
    next call builds a new one.
    """

    def __init__(self, target_link: kusari.Link, source_link: kusari.Link) -> None:
        target = _target_params(target_link, source_link)
        self.source_link = source_link
        self.source_params = list(source_link.params())
        pairs = [
            (target[name], param)
            for name, param in source_link.namedparams()
            if param.array is not None
        ]
        self.target_params = [t for t, _ in pairs]
        self.live_sources = [s for _, s in pairs]
        self.flat: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        if pairs:
            self.flat = self._pack()
        self.source_arrays = [p.array for p in self.source_params]
        self.target_arrays = [p.array for p in self.target_params]
        self.bn_pairs = [
            (dict(target_link.namedlinks())[name], link)
            for name, link in source_link.namedlinks()
            if isinstance(link, L.BatchNormalization)
        ]

    def _pack(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        src = [p.array for p in self.live_sources]
        dst = [p.array for p in self.target_params]
        if not all(type(a) is np.ndarray for a in src + dst):
            return None
        dtype = src[0].dtype
        if dtype.kind != "f" or any(
            a.dtype != dtype or t.shape != a.shape for a, t in zip(src, dst)
        ):
            return None
        s_flat = _flat_span(src)
        if s_flat is None:
            return None
        t_flat = _flat_span(dst)
        if t_flat is None:
            if any(a.base is not None for a in dst):
                # Views of memory someone else laid out (tied weights): moving
                # them into a new buffer would break the sharing.
                return None
            t_flat = np.empty(s_flat.size, dtype)
            pos = 0
            for param, a in zip(self.target_params, dst):
                view = t_flat[pos : pos + a.size].reshape(a.shape)
                view[...] = a
                param.array = view
                pos += a.size
        return t_flat, s_flat, np.empty_like(s_flat)

    def still_valid(self, source_link: kusari.Link) -> bool:
        if source_link is not self.source_link:
            return False
        params = list(source_link.params())
        if len(params) != len(self.source_params):
            return False
        return (
            all(p is q for p, q in zip(params, self.source_params))
            and all(p.array is a for p, a in zip(params, self.source_arrays))
            and all(
                p.array is a for p, a in zip(self.target_params, self.target_arrays)
            )
        )

    def run(self, tau: float) -> None:
        if self.flat is not None:
            t, s, scratch = self.flat
            t *= 1 - tau
            np.multiply(s, tau, out=scratch)
            t += scratch
        else:
            for tp, sp in zip(self.target_params, self.live_sources):
                t = tp.array
                t *= 1 - tau
                t += tau * sp.array
        for bn, link in self.bn_pairs:
            for attr in ("avg_mean", "avg_var"):
                t = getattr(bn, attr)
                s = getattr(link, attr)
                if t is None or s is None:
                    continue
                t *= 1 - tau
                t += tau * s


# One plan per target link; a link that goes away takes its plan with it.
_plans: weakref.WeakKeyDictionary[kusari.Link, _PolyakPlan] = (
    weakref.WeakKeyDictionary()
)


def _copy_bn_stats(
    target_link: kusari.Link, source_link: kusari.Link, tau: float
) -> None:
    targets = dict(target_link.namedlinks())
    for name, link in source_link.namedlinks():
        if isinstance(link, L.BatchNormalization):
            bn = targets[name]
            for attr in ("avg_mean", "avg_var"):
                t = getattr(bn, attr)
                s = getattr(link, attr)
                if t is None or s is None:
                    continue
                t *= 1 - tau
                t += tau * s


def copy_grad(target_link: kusari.Link, source_link: kusari.Link) -> None:
    """Copy the gradients of ``source_link`` into ``target_link``."""
    target = dict(target_link.namedparams())
    for name, param in source_link.namedparams():
        if param.grad is None:
            target[name].grad = None
        elif target[name].grad is None:
            target[name].grad = param.grad.copy()
        else:
            target[name].grad[...] = param.grad
