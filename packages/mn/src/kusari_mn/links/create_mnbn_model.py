"""Turn every BatchNormalization of a model into a MultiNodeBatchNormalization."""

from __future__ import annotations

import copy
from typing import Any

import kusari
import kusari.links as L
from kusari_mn.links.batch_normalization import MultiNodeBatchNormalization


def _convert(
    bn: Any, comm: Any, communication_backend: str
) -> MultiNodeBatchNormalization:
    if bn.avg_mean is None:
        raise ValueError(
            "create_mnbn_model: a BatchNormalization is not initialized yet "
            "(created without size); give it a size or run one forward first"
        )
    if bn.axis is not None:
        raise ValueError(
            "create_mnbn_model: BatchNormalization with a custom axis is not "
            "supported (MultiNodeBatchNormalization normalizes over axis 1)"
        )
    gamma = getattr(bn, "gamma", None)
    beta = getattr(bn, "beta", None)
    mnbn = MultiNodeBatchNormalization(
        bn.avg_mean.shape[0],
        comm,
        decay=bn.decay,
        eps=bn.eps,
        dtype=bn.avg_mean.dtype,
        use_gamma=gamma is not None,
        use_beta=beta is not None,
        communication_backend=communication_backend,
    )
    mnbn.avg_mean = bn.avg_mean.copy()
    mnbn.avg_var = bn.avg_var.copy()
    mnbn.N = bn.N
    if gamma is not None:
        mnbn.gamma.array[...] = gamma.array
    if beta is not None:
        mnbn.beta.array[...] = beta.array
    if bn.xp is not mnbn.xp:
        mnbn.to_device(bn.device)
    return mnbn


def _replace_children(link: Any, comm: Any, backend: str) -> None:
    direct = [
        (path[1:], child)
        for path, child in link.namedlinks(skipself=True)
        if path.count("/") == 1
    ]
    for name, child in direct:
        if isinstance(child, L.BatchNormalization):
            new = _convert(child, comm, backend)
            if isinstance(link, kusari.ChainList):
                link[int(name)] = new  # keeps the position and the name
            else:
                delattr(link, name)
                with link.init_scope():
                    setattr(link, name, new)
        else:
            _replace_children(child, comm, backend)


def create_mnbn_model(link: Any, comm: Any, communication_backend: str = "auto") -> Any:
    """A copy of ``link`` with each BatchNormalization made multi-node.

    Parameters and running averages are copied over, so the result computes
    the same function in test mode.

    Args:
        link: A model (Chain / ChainList tree, or a BatchNormalization).
        comm: The communicator.
        communication_backend: Passed to each MultiNodeBatchNormalization.

    Returns:
        The converted copy; ``link`` itself is unchanged.
    """
    if isinstance(link, L.BatchNormalization):
        return _convert(link, comm, communication_backend)
    result = copy.deepcopy(link)
    _replace_children(result, comm, communication_backend)
    return result
