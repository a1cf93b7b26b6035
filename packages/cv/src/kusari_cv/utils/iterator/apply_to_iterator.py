"""Apply a (batched) function to everything an iterator yields."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from kusari_cv.utils.iterator.unzip import unzip

_Hook = Callable[[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]], Any]
_Values = tuple[list[Any], ...]


def _split(batch: list[Any], n_input: int) -> tuple[_Values, _Values]:
    ins: list[tuple[Any, ...]] = []
    rests: list[tuple[Any, ...]] = []
    for sample in batch:
        if isinstance(sample, tuple):
            ins.append(sample[:n_input])
            rests.append(sample[n_input:])
        else:
            ins.append((sample,))
            rests.append(())
    in_values = tuple([s[i] for s in ins] for i in range(len(ins[0])))
    rest_values = tuple([s[i] for s in rests] for i in range(len(rests[0])))
    return in_values, rest_values


def _call(func: Callable[..., Any], in_values: _Values, n: int) -> _Values:
    out = func(*in_values)
    if not isinstance(out, tuple):
        out = (out,)
    for values in out:
        if len(values) != n:
            raise ValueError(
                "apply_to_iterator: func must return one value per sample of the "
                f"batch ({n}), got {len(values)}"
            )
    return tuple(list(values) for values in out)


def _distributed_call(
    func: Callable[..., Any], in_values: _Values, n: int, comm: Any
) -> _Values:
    """Root side: send each worker its share of the batch, compute the own
    share, gather and join the outputs in sample order."""
    bounds = [n * r // comm.size for r in range(comm.size + 1)]
    for r in range(1, comm.size):
        share = tuple(v[bounds[r] : bounds[r + 1]] for v in in_values)
        comm.send_obj(share, dest=r)
    own = tuple(v[bounds[0] : bounds[1]] for v in in_values)
    outs = comm.gather_obj(_call(func, own, bounds[1]) if bounds[1] else None)
    outs = [o for o in outs if o is not None]
    return tuple(sum((list(o[p]) for o in outs), []) for p in range(len(outs[0])))


def _serve(func: Callable[..., Any], comm: Any) -> None:
    """Worker side: compute the shares the root sends until it sends None."""
    while True:
        share = comm.recv_obj(source=0)
        if share is None:
            return
        n = len(share[0])
        comm.gather_obj(_call(func, share, n) if n else None)


def _apply(
    func: Callable[..., Any], iterator: Any, n_input: int, hook: _Hook | None, comm: Any
) -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...], tuple[Any, ...]]]:
    try:
        for batch in iterator:
            if len(batch) == 0:
                continue
            in_values, rest_values = _split(batch, n_input)
            if comm is None or comm.size == 1:
                out_values = _call(func, in_values, len(batch))
            else:
                out_values = _distributed_call(func, in_values, len(batch), comm)
            if hook is not None:
                hook(in_values, out_values, rest_values)
            for i in range(len(batch)):
                yield (
                    tuple(v[i] for v in in_values),
                    tuple(v[i] for v in out_values),
                    tuple(v[i] for v in rest_values),
                )
    finally:
        if comm is not None and comm.size > 1:
            for r in range(1, comm.size):
                comm.send_obj(None, dest=r)


def apply_to_iterator(
    func: Callable[..., Any],
    iterator: Any,
    n_input: int = 1,
    hook: _Hook | None = None,
    comm: Any = None,
) -> tuple[tuple[Iterator[Any], ...], ...] | None:
    """Run ``func`` on each batch of ``iterator`` and return lazy iterators.

    Each batch is a list of samples. The first ``n_input`` elements of every
    sample (the whole sample when it is not a tuple) are the inputs: ``func``
    is called with one list per input position (e.g. ``func(imgs)``) and
    returns one batch of outputs, or a tuple of them (e.g. ``bboxes, labels,
    scores``). The remaining elements of the samples (e.g. ground truth) are
    passed through untouched.

    Nothing runs until the returned iterators are read, so a whole data set
    never has to fit in memory; delete the iterators you do not need (e.g.
    ``del in_values``) so their values are not buffered.

    Args:
        func: A function taking ``n_input`` lists of values.
        iterator: An iterator yielding batches (lists of samples); it should
            not repeat. With ``comm``, only the root worker's is used (pass
            None elsewhere).
        n_input: How many leading elements of a sample are inputs.
        hook: Called as ``hook(in_values, out_values, rest_values)`` after each
            batch, with one list per position (e.g. :class:`ProgressHook`).
        comm: A kusari_mn communicator, or None. The root (rank 0) splits
            each batch among all workers, which run ``func`` on their share;
            the root gathers the outputs. Only the root gets the iterators
            (and must read them to the end); on the other workers this call
            computes until the root is done and returns None.

    Returns:
        ``(in_values, out_values, rest_values)``: each a tuple of iterators,
        one per position, over samples.

    Example:
        >>> from kusari.iterators import SerialIterator
        >>> data = [(1, 'a'), (2, 'b'), (3, 'c')]
        >>> it = SerialIterator(data, 2, repeat=False, shuffle=False)
        >>> ins, outs, rests = apply_to_iterator(
        ...     lambda xs: [x * 10 for x in xs], it)
        >>> list(outs[0]), list(rests[0])
        ([10, 20, 30], ['a', 'b', 'c'])
    """
    if n_input < 1:
        raise ValueError(f"apply_to_iterator: n_input must be >= 1, got {n_input}")
    if comm is not None and comm.rank != 0:
        _serve(func, comm)
        return None
    columns = unzip(_apply(func, iterator, n_input, hook, comm))
    if not columns:
        return (), (), ()
    in_values, out_values, rest_values = columns
    return unzip(in_values), unzip(out_values), unzip(rest_values)
