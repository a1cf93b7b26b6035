"""What multi_node_mean_grad keeps between calls, and the resync flag.

The walk over a model's parameters is kept while its ``param_set_version``
stays the same: these checks change the model (children appended, deleted,
replaced in a ChainList; a parameter added) on every rank and compare the
result with NumPy's mean of all ranks' gradients, with the ring forced and
with it off. A resynchronization request (what MultiNodeOptimizer sends
when its parameter set changed) from one rank only, on the first call, in
an agreed layout, with an empty agreed layout and together with a layout
change, must come back True on every rank without a hang. Last, the
optimizers must add no collective of their own to a step. Prints
``PARAM-SET-OK <rank>``.
"""

import gc

import check_grad_buffer
import numpy as np

import kusari
import kusari.links as L
import kusari_mn

kusari_mn.global_except_hook.remove_hook()


class CountingComm:
    """An mpi4py communicator that counts the calls of its methods."""

    def __init__(self, comm):
        self._comm = comm
        self.calls = {}

    def __getattr__(self, name):
        attr = getattr(self._comm, name)
        if not callable(attr):
            return attr

        def counted(*args, **kwargs):
            self.calls[name] = self.calls.get(name, 0) + 1
            return attr(*args, **kwargs)

        return counted


def set_grads(comm, model, seed):
    rng = np.random.RandomState(100 * seed + comm.rank)
    for p in model.params(include_uninit=False):
        p.grad = rng.standard_normal(p.shape).astype(p.dtype)


def mean_and_check(comm, model, what, seed):
    set_grads(comm, model, seed)
    expect = check_grad_buffer.expected_mean(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=True)
    check_grad_buffer.assert_means(model, expect, rtol=1e-5, what=what)


def check_structure_changes(comm, ring):
    what = f"ring={ring}"
    model = kusari.ChainList(L.Linear(3, 4), L.Linear(4, 2))
    mean_and_check(comm, model, f"{what} first", 1)
    walk = comm._grads._walk
    mean_and_check(comm, model, f"{what} again", 2)
    assert comm._grads._walk is walk, "an unchanged model was walked again"
    model.append(L.Linear(2, 5))
    mean_and_check(comm, model, f"{what} appended", 3)
    assert "/2/W" in dict(comm._grads.select(model, True))
    del model[0]
    mean_and_check(comm, model, f"{what} first deleted", 4)
    del model[-1]
    mean_and_check(comm, model, f"{what} last deleted", 5)
    assert len(comm._grads.select(model, True)) == 2
    model[0] = L.Linear(4, 3)
    mean_and_check(comm, model, f"{what} replaced", 6)
    with model[0].init_scope():
        model[0].c = kusari.Parameter(np.zeros(3, np.float32))
    mean_and_check(comm, model, f"{what} parameter added", 7)
    assert "/0/c" in dict(comm._grads.select(model, True))
    # a lazily initialized parameter gets its array: no version change, but
    # it takes part from then on
    lazy = kusari.ChainList(L.Linear(None, 3))
    mean_and_check(comm, lazy, f"{what} lazy, uninitialized", 8)
    assert not comm._grads.select(lazy, True)[0][0].endswith("W")
    lazy[0](np.ones((1, 2), np.float32))
    mean_and_check(comm, lazy, f"{what} lazy, initialized", 9)
    assert [n for n, _ in comm._grads.select(lazy, True)] == ["/0/W", "/0/b"]
    # the kept walk does not keep the model alive
    del lazy
    gc.collect()
    assert comm._grads._walk[0]() is None


def check_steady(comm, ring):
    """Repeated calls on gradients left in their views skip the selection
    (with the ring); anything that changes takes the full path again."""
    what = f"ring={ring} steady"
    fused = ring and comm.size > 1  # (one rank: no ring)
    model = kusari.ChainList(L.Linear(3, 4), L.Linear(4, 2))
    other = kusari.ChainList(L.Linear(3, 4), L.Linear(4, 2))  # same layout
    grads = comm._grads
    selects = []
    select = grads.select
    grads.select = lambda *a, **k: selects.append(1) or select(*a, **k)
    try:
        mean_and_check(comm, model, f"{what} first", 30)

        def again(seed, label):
            # in place, so that the gradients stay the buffer's views
            rng = np.random.RandomState(100 * seed + comm.rank)
            for p in model.params():
                if p.grad is not None:  # (None: averaged as zeros)
                    p.grad[...] = rng.standard_normal(p.shape)
            expect = check_grad_buffer.expected_mean(comm, model)
            del selects[:]
            comm.multi_node_mean_grad(model, zero_fill=True)
            check_grad_buffer.assert_means(model, expect, 1e-5, f"{what} {label}")
            return bool(selects)

        assert again(31, "in place") is not fused  # the ring groups skip it
        assert again(32, "in place again") is not fused
        model[0].W.grad = np.ones((4, 3), np.float32)  # replaced
        assert again(33, "after a replaced gradient")
        assert again(34, "steady again") is not fused
        model[1].b.grad = None  # zero_fill: zeros
        assert again(35, "after a None gradient")
        model[1].W.array = model[1].W.array.copy()  # a new array
        assert again(36, "after a new array")
        mean_and_check(comm, other, f"{what} another model", 37)
        assert again(38, "back to the first model")
        model.append(L.Linear(2, 2))
        set_grads(comm, model, 39)
        assert again(40, "after a structural change")
    finally:
        grads.select = select


def check_resync(comm, ring):
    r, last = comm.rank, comm.size - 1
    model = L.Linear(3, 2)
    for case in ("new model", "agreed", "agreed again"):
        set_grads(comm, model, 10)
        got = comm._mean_grad(model, True, r == last)
        assert got is True, (case, got)
        # all ranks compare afresh, and averaging goes on normally
        mean_and_check(comm, model, f"ring={ring} after resync ({case})", 11)
    # together with a layout change on the asking rank: no error
    if r == last:
        with model.init_scope():
            model.c = kusari.Parameter(np.zeros(2, np.float32))
    set_grads(comm, model, 12)
    assert comm._mean_grad(model, True, r == last) is True
    if r != last:
        with model.init_scope():
            model.c = kusari.Parameter(np.zeros(2, np.float32))
    mean_and_check(comm, model, f"ring={ring} after a resync with a new layout", 13)
    # no request anywhere: no resync, and a mismatch is still an error
    set_grads(comm, model, 14)
    assert comm._mean_grad(model, True, False) is False
    # an agreed layout with nothing in it (flag in a collective of its own)
    empty = L.Linear(None, 2, nobias=True)
    assert comm._mean_grad(empty, True, False) is False
    assert comm._mean_grad(empty, True, r == last) is True
    assert comm._mean_grad(empty, True, False) is False


def check_optimizer_collectives(comm, ring):
    """MultiNodeOptimizer.update makes exactly the collectives of
    multi_node_mean_grad; double buffering one small Allreduce and one
    Iallreduce per gradient dtype."""
    model = L.Linear(30, 20)
    opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(lr=0.0), comm)
    opt.setup(model)
    counting = CountingComm(comm.mpi_comm)
    plain_comm = comm.mpi_comm
    comm.mpi_comm = counting
    try:
        set_grads(comm, model, 20)
        comm.multi_node_mean_grad(model, zero_fill=True)  # agree first
        counting.calls.clear()
        set_grads(comm, model, 21)
        comm.multi_node_mean_grad(model, zero_fill=True)
        bare = dict(counting.calls)
        set_grads(comm, model, 22)
        expect = check_grad_buffer.expected_mean(comm, model)
        counting.calls.clear()
        opt.update()
        assert counting.calls == bare, (ring, counting.calls, bare)
        check_grad_buffer.assert_means(model, expect, rtol=1e-5, what="optimizer")
        # no walk of the model in a step where nothing changed (the
        # wrapped optimizer's own update walks it, as it does on one rank;
        # its first update packed the arrays into a buffer, replacing them)
        opt.update()
        walked = []
        model.namedparams = lambda *a, **k: walked.append(1) or iter(())
        try:
            assert opt._mean_grad_or_resync(model) is False
        finally:
            del model.namedparams
        assert not walked, "MultiNodeOptimizer.update walked an unchanged model"
        double = kusari_mn.create_multi_node_optimizer(
            kusari.optimizers.SGD(lr=0.0), comm, double_buffering=True
        )
        double.setup(model)
        for step in range(5):
            set_grads(comm, model, 23)
            counting.calls.clear()
            double.update()
            if step < 2:
                continue  # each of the two buffers agrees on its layout once
            expected = {"Iallreduce": 1}
            if comm.size > 1:
                expected["Allreduce"] = 1  # the flags, layout and parameter set
            assert counting.calls == expected, ("double", counting.calls)
        double.wait()
    finally:
        comm.mpi_comm = plain_comm


def main():
    for ring in (True, False):
        comm = kusari_mn.create_communicator("flat")
        comm._ring_min_shard_bytes = 0 if ring else 1 << 62
        check_structure_changes(comm, ring)
        check_steady(comm, ring)
        check_resync(comm, ring)
        check_optimizer_collectives(comm, ring)
    print(f"PARAM-SET-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
