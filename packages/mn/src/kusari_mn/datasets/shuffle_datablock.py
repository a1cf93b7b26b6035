"""Balance data that every rank reads in blocks (when scatter_dataset can't).

For data too large to hold on one rank, or of unknown length, each rank
reads its own blocks; after each round of reading, ranks holding more than
their share send the surplus of the new block to ranks holding less.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any


def _targets(total: int, size: int) -> list[int]:
    base, rem = divmod(total, size)
    return [base + (1 if r < rem else 0) for r in range(size)]


def _plan(have: list[int], target: list[int]) -> dict[tuple[int, int], int]:
    """``{(src, dst): count}`` moving each surplus to the ranks short of items."""
    surplus = [h - t for h, t in zip(have, target, strict=True)]
    moves: dict[tuple[int, int], int] = {}
    dst = 0
    for src in range(len(have)):
        while surplus[src] > 0:
            while surplus[dst] >= 0:
                dst += 1
            n = min(surplus[src], -surplus[dst])
            moves[(src, dst)] = n
            surplus[src] -= n
            surplus[dst] += n
    return moves


def shuffle_data_blocks(
    comm: Any, blocks: Iterable[Any], block_size: int, force_equal_length: bool = True
) -> list[Any]:
    """Read ``blocks`` in rounds of ``block_size`` items and balance them.

    Every rank passes its own iterable of items; all ranks must call this
    together. Afterwards the ranks hold lists whose lengths differ by at
    most one, or (``force_equal_length``) are equal, a few items being
    repeated on the shorter ranks.

    Args:
        comm: An MPI communicator of kusari_mn.
        blocks: This rank's items (a list or any iterable, e.g. a generator
            reading a file).
        block_size: Items read per round.
        force_equal_length: Pad to equal lengths (for training, so that all
            ranks run the same number of iterations).

    Returns:
        This rank's list of items.
    """
    if block_size < 1:
        raise ValueError(
            f"shuffle_data_blocks: block_size must be >= 1, got {block_size}"
        )
    items = iter(blocks)
    data: list[Any] = []
    lengths = [0] * comm.size
    while True:
        block = list(itertools.islice(items, block_size))
        block_lengths = comm.mpi_comm.allgather(len(block))
        if not any(block_lengths):
            break
        have = [d + b for d, b in zip(lengths, block_lengths, strict=True)]
        target = _targets(sum(have), comm.size)
        moves = _plan(have, target)
        outgoing: list[list[Any]] = [[] for _ in range(comm.size)]
        for (src, dst), n in sorted(moves.items()):
            if src == comm.rank:
                outgoing[dst] = block[len(block) - n :]
                block = block[: len(block) - n]
        data += block
        for part in comm.mpi_comm.alltoall(outgoing):
            data += part
        lengths = target
    if force_equal_length and data and len(data) < max(lengths):
        need = max(lengths) - len(data)
        data += (data * (need // len(data) + 1))[:need]
    return data
