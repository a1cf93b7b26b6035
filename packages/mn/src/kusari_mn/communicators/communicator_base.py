"""The interface every kusari_mn communicator implements.

Method names follow MPI (``bcast`` is ``MPI_Bcast``). Methods without a
suffix move arrays (NumPy or CuPy); the ``*_obj`` forms move picklable
Python objects. ``multi_node_mean_grad`` and ``bcast_data`` work on a whole
:class:`kusari.Link`.
"""

from __future__ import annotations

import abc
import warnings
from typing import Any


class CommunicatorBase(abc.ABC):
    """Abstract communicator: rank/size attributes plus collectives.

    Attributes:
        rank: This process's rank in the communicator.
        size: Number of processes.
        intra_rank: Rank among the processes on this machine.
        intra_size: Number of processes on this machine.
        inter_rank: Index of this machine among the machines.
        inter_size: Number of machines.
    """

    @property
    @abc.abstractmethod
    def rank(self) -> int: ...

    @property
    @abc.abstractmethod
    def size(self) -> int: ...

    @property
    @abc.abstractmethod
    def intra_rank(self) -> int: ...

    @property
    @abc.abstractmethod
    def intra_size(self) -> int: ...

    @property
    @abc.abstractmethod
    def inter_rank(self) -> int: ...

    @property
    @abc.abstractmethod
    def inter_size(self) -> int: ...

    @abc.abstractmethod
    def split(self, color: int, key: int) -> CommunicatorBase:
        """``MPI_Comm_split``: a communicator of the ranks sharing ``color``."""

    # -- arrays ----------------------------------------------------------------
    @abc.abstractmethod
    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        """Send an array or a tuple of arrays to ``dest``."""

    @abc.abstractmethod
    def recv(self, source: int, tag: int = 0) -> Any:
        """Receive what the matching :meth:`send` sent."""

    @abc.abstractmethod
    def bcast(self, data: Any, root: int = 0) -> Any:
        """Broadcast an array from ``root``; every rank gets a copy."""

    @abc.abstractmethod
    def gather(self, data: Any, root: int = 0) -> Any:
        """Gather one array per rank on ``root`` (a tuple; None elsewhere)."""

    @abc.abstractmethod
    def allgather(self, data: Any) -> tuple[Any, ...]:
        """Every rank gets the tuple of every rank's array."""

    @abc.abstractmethod
    def allreduce(self, data: Any) -> Any:
        """Element-wise sum of every rank's array."""

    @abc.abstractmethod
    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Rank ``i`` gets ``xs[i]`` of ``root``'s ``xs``."""

    @abc.abstractmethod
    def alltoall(self, xs: Any) -> tuple[Any, ...]:
        """Rank ``j`` gets ``xs[j]`` of every rank, as a tuple by source."""

    # -- objects ---------------------------------------------------------------
    @abc.abstractmethod
    def send_obj(self, obj: Any, dest: int, tag: int = 0) -> None:
        """Send a picklable object to ``dest``."""

    @abc.abstractmethod
    def recv_obj(self, source: int, status: Any = None, tag: int = -1) -> Any:
        """Receive an object sent by :meth:`send_obj`."""

    @abc.abstractmethod
    def bcast_obj(self, obj: Any, max_buf_len: int | None = None, root: int = 0) -> Any:
        """Broadcast an object from ``root``."""

    @abc.abstractmethod
    def gather_obj(self, obj: Any, root: int = 0) -> Any:
        """A list of every rank's object on ``root`` (None elsewhere)."""

    @abc.abstractmethod
    def allreduce_obj(self, obj: Any) -> Any:
        """The sum (``+``) of every rank's object, on every rank."""

    # -- models ----------------------------------------------------------------
    @abc.abstractmethod
    def bcast_data(self, model: Any) -> None:
        """Overwrite every rank's parameters with rank 0's."""

    def broadcast_data(self, model: Any) -> None:
        """Older name of :meth:`bcast_data`."""
        self.bcast_data(model)

    @abc.abstractmethod
    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Replace every gradient of ``model`` by its mean over the ranks.

        Args:
            model: The link.
            zero_fill: Treat an initialized parameter whose gradient is None
                as a zero gradient (and give it the mean). Without it such
                parameters are left out, so every rank must then have the
                same set of gradients.
        """

    def allreduce_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Deprecated name of :meth:`multi_node_mean_grad`."""
        warnings.warn(
            "allreduce_grad() is deprecated; use multi_node_mean_grad()",
            DeprecationWarning,
            stacklevel=2,
        )
        self.multi_node_mean_grad(model, zero_fill)

    def finalize(self) -> None:  # noqa: B027 (optional hook, no-op by default)
        """Release resources; the communicator must not be used afterwards."""

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Set a communicator option (``batched_copy`` is the only one)."""
        raise ValueError(f"{type(self).__name__}.set_config: unknown option {name!r}")

    def get_config(self, name: str | None = None) -> Any:
        """Read a communicator option set by :meth:`set_config`."""
        raise ValueError(f"{type(self).__name__}.get_config: unknown option {name!r}")
