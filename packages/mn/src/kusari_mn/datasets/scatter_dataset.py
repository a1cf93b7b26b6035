"""Split a dataset held by one rank into equal parts, one per rank."""

from __future__ import annotations

from typing import Any

import numpy

from kusari.datasets import SubDataset

_DEFAULT_MAX_BUF_LEN = 256 * 1024 * 1024


class DataSizeError(RuntimeError):
    """The dataset cannot be split over the ranks (too small, or missing)."""


def _ranges(n: int, size: int, force_equal_length: bool) -> list[tuple[int, int]]:
    """Rank ``i``'s ``[begin, end)``; with ``force_equal_length`` ends may pass ``n``
    (positions past the end wrap around to the start)."""
    if force_equal_length:
        per = -(-n // size)
        return [(i * per, (i + 1) * per) for i in range(size)]
    bounds = [n * i // size for i in range(size + 1)]
    return list(zip(bounds[:-1], bounds[1:], strict=True))


def _agree(comm: Any, caller: str, settings: dict[str, Any]) -> None:
    """Raise on every rank when the ranks called with different settings."""
    everyone = comm.mpi_comm.allgather(settings)
    for rank, theirs in enumerate(everyone):
        if theirs != everyone[0]:
            raise ValueError(
                f"{caller}: the ranks called it with different arguments "
                f"(rank 0: {everyone[0]}, rank {rank}: {theirs}); every rank "
                "must pass the same root, shuffle, seed and force_equal_length"
            )


def scatter_index(
    n_total_samples: int, comm: Any, root: int = 0, *, force_equal_length: bool = True
) -> tuple[int, int]:
    """This rank's ``(begin, end)`` of ``n_total_samples`` split over the ranks.

    Args:
        n_total_samples: Number of examples (read on ``root``).
        comm: The communicator.
        root: The rank whose ``n_total_samples`` counts.
        force_equal_length: Give every rank ``ceil(n / size)`` indices;
            ``end`` may then exceed ``n`` (wrap the excess around).

    Returns:
        ``(begin, end)``.
    """
    _agree(comm, "scatter_index", {"root": root, "equal": force_equal_length})
    n = comm.bcast_obj(n_total_samples if comm.rank == root else None, root=root)
    if n < comm.size:
        raise DataSizeError(
            f"scatter_index: {n} samples cannot be split over {comm.size} ranks"
        )
    return _ranges(n, comm.size, force_equal_length)[comm.rank]


def scatter_dataset(
    dataset: Any,
    comm: Any,
    root: int = 0,
    shuffle: bool = False,
    seed: int | None = None,
    max_buf_len: int = _DEFAULT_MAX_BUF_LEN,
    *,
    force_equal_length: bool = True,
) -> SubDataset:
    """Give each rank an equal share of the dataset held by ``root``.

    Only the examples of its share travel to each rank (in pieces of at
    most ``max_buf_len`` bytes). With ``force_equal_length`` every rank gets
    ``ceil(len / size)`` examples (a few repeated) so that all ranks run the
    same number of iterations per epoch.

    Every rank must call it with the same ``root``, ``shuffle``, ``seed``
    and ``force_equal_length``; a mismatch, or a dataset with fewer examples
    than ranks, raises on every rank (no rank is left waiting).

    Args:
        dataset: The dataset on ``root`` (ignored elsewhere; pass None).
        comm: The communicator.
        root: The rank holding the dataset.
        shuffle: Permute the examples before splitting.
        seed: Seed of the permutation (random when None).
        max_buf_len: Largest message in bytes.
        force_equal_length: Pad the shares to equal length.

    Returns:
        This rank's part, a :class:`kusari.datasets.SubDataset`.

    Example:
        >>> train = kusari_mn.scatter_dataset(
        ...     train if comm.rank == 0 else None, comm, shuffle=True,
        ...     seed=0)  # doctest: +SKIP
    """
    _agree(
        comm,
        "scatter_dataset",
        {"root": root, "shuffle": shuffle, "seed": seed, "equal": force_equal_length},
    )
    status: Any = None
    if comm.rank == root:
        if dataset is None:
            status = "the root rank passed dataset=None"
        elif len(dataset) < comm.size:
            status = (
                f"the dataset has {len(dataset)} examples, fewer than the "
                f"{comm.size} ranks"
            )
    status = comm.bcast_obj(status, root=root)
    if status is not None:
        raise DataSizeError(f"scatter_dataset: {status}")

    if comm.rank == root:
        n = len(dataset)
        order = numpy.arange(n)
        if shuffle:
            order = numpy.random.RandomState(seed).permutation(n)
        mine: Any = None
        for rank, (b, e) in enumerate(_ranges(n, comm.size, force_equal_length)):
            indices = order[numpy.arange(b, e) % n]
            part = [dataset[int(i)] for i in indices]
            if rank == root:
                mine = part
            else:
                comm.send_obj_chunked(part, rank, max_buf_len)
    else:
        mine = comm.recv_obj_chunked(root)
    return SubDataset(mine, 0, len(mine))
