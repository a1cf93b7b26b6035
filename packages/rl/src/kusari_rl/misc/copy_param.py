"""Copy parameters between links of the same structure (target networks)."""

from __future__ import annotations

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
    """Polyak update: ``target = tau * source + (1 - tau) * target``."""
    target = _target_params(target_link, source_link)
    for name, param in source_link.namedparams():
        if param.array is None:
            continue
        t = target[name].array
        t *= 1 - tau
        t += tau * param.array
    _copy_bn_stats(target_link, source_link, tau)


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
