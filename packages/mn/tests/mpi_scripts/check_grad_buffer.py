"""multi_node_mean_grad's persistent buffer: every way gradients change.

Gradients are views of one flat buffer per dtype after each call; these
checks change them the ways users and optimizers do (in place, cleargrads,
zerograds, backward, None, lazily initialized or added parameters, float16
on the wire, mixed dtypes) and compare each result with the mean computed
from every rank's gradients. Prints ``GRAD-BUFFER-OK <rank>``.
"""

import warnings

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn


def expected_mean(comm, model, zero_fill=True):
    """The mean of every rank's current gradients (None counts as zeros)."""
    mine = {
        name: (np.zeros(p.shape) if p.grad is None and zero_fill else p.grad)
        for name, p in model.namedparams()
        if p.array is not None
    }
    everyone = comm.allgather_obj(
        {k: None if v is None else np.asarray(v, np.float64) for k, v in mine.items()}
    )
    return {
        k: None
        if mine[k] is None
        else np.mean([d[k] for d in everyone if d[k] is not None], axis=0)
        for k in mine
    }


def assert_means(model, expect, rtol=1e-6, what=""):
    for name, p in model.namedparams():
        if name not in expect:
            continue
        if expect[name] is None:
            assert p.grad is None, f"{what} {name}: grad should stay None"
            continue
        np.testing.assert_allclose(
            p.grad, expect[name], rtol=rtol, atol=1e-6, err_msg=f"{what} {name}"
        )


def model_views(comm):
    return {id(v) for g in comm._grads.groups for v in g.views}


def check_in_place_and_replaced(comm):
    r = comm.rank
    model = L.Linear(5, 7)
    rng = np.random.RandomState(r)
    for p in model.params():
        p.grad = rng.rand(*p.shape).astype(np.float32)
    expect = expected_mean(comm, model)
    comm.multi_node_mean_grad(model)
    assert_means(model, expect, what="fresh")
    views = model_views(comm)
    assert {id(p.grad) for p in model.params()} == views, "grads are not views"
    buffer_id = id(comm._grads.groups[0].buffer)
    for step in range(3):
        # written in place (the views stay the gradients): nothing is copied
        for i, p in enumerate(model.params()):
            p.grad[...] = (r + 1) * (step + i + 1)
        expect = expected_mean(comm, model)
        comm.multi_node_mean_grad(model)
        assert_means(model, expect, what=f"in place {step}")
        assert {id(p.grad) for p in model.params()} == views
        assert id(comm._grads.groups[0].buffer) == buffer_id
    # cleargrads and new arrays, as backward makes them
    model.cleargrads()
    model.W.grad = np.full(model.W.shape, float(r), np.float32)
    model.b.grad = np.arange(7, dtype=np.float32) * (r + 2)
    expect = expected_mean(comm, model)
    comm.multi_node_mean_grad(model)
    assert_means(model, expect, what="after cleargrads")
    assert {id(p.grad) for p in model.params()} == views, "views not handed back"
    # zerograds zeroes the views in place; then accumulate in place
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        model.zerograds()
    assert not comm._grads.groups[0].buffer.any(), "zerograds missed the buffer"
    model.W.grad += r + 1
    expect = expected_mean(comm, model)
    comm.multi_node_mean_grad(model)
    assert_means(model, expect, what="after zerograds")
    np.testing.assert_allclose(model.b.grad, 0)


def check_backward(comm, use_cleargrads):
    """Real backward passes through the multi-node optimizer."""
    r = comm.rank
    model = L.Linear(4, 3)
    opt = kusari_mn.create_multi_node_optimizer(kusari.optimizers.SGD(lr=0.0), comm)
    opt.setup(model)
    if not use_cleargrads:  # zerograds before each backward instead
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            opt.use_cleargrads(False)
    for step in range(3):
        x = np.random.RandomState(10 * r + step).rand(2, 4).astype(np.float32)

        def loss(x=x):
            return F.sum(model(x) ** 2)

        # the same gradient on one rank, computed apart
        ref = model.copy(mode="copy")
        ref.cleargrads()
        F.sum(ref(x) ** 2).backward()
        expect = expected_mean(comm, ref)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            opt.update(loss)
        assert_means(model, expect, rtol=1e-5, what=f"backward {step}")


def check_none_lazy_and_added(comm):
    r, n = comm.rank, comm.size
    model = kusari.Chain()
    with model.init_scope():
        model.a = L.Linear(3, 2)
        model.lazy = L.Linear(None, 2)
    model.a.W.grad = np.full((2, 3), r + 1.0, np.float32)
    model.a.b.grad = None
    # uninitialized: left out; None: zeros with zero_fill
    expect = expected_mean(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=True)
    assert_means(model, expect, what="zero_fill")
    assert model.lazy.W.array is None and model.lazy.W.grad is None
    np.testing.assert_array_equal(model.a.b.grad, np.zeros(2))
    # a gradient on rank 0 only: the others count it as zeros
    model.a.b.grad = np.ones(2, np.float32) if r == 0 else None
    comm.multi_node_mean_grad(model, zero_fill=True)
    np.testing.assert_allclose(model.a.b.grad, np.full(2, 1.0 / n))
    # cleared again: zeros, not what the buffer held from the last step
    model.a.b.cleargrad()
    comm.multi_node_mean_grad(model, zero_fill=True)
    np.testing.assert_array_equal(model.a.b.grad, np.zeros(2))
    # without zero_fill a None gradient (on every rank) stays None
    model.a.b.grad = None
    model.a.W.grad = np.full((2, 3), r + 1.0, np.float32)
    comm.multi_node_mean_grad(model, zero_fill=False)
    assert model.a.b.grad is None
    np.testing.assert_allclose(model.a.W.grad, np.full((2, 3), (n + 1) / 2))
    # the lazy link gets its weights, then a parameter is added
    model.lazy(np.zeros((1, 5), np.float32))
    with model.init_scope():
        model.extra = kusari.Parameter(np.zeros(4, np.float32))
    for i, p in enumerate(model.params()):
        p.grad = np.full(p.shape, (r + 1) * (i + 1), np.float32)
    expect = expected_mean(comm, model)
    comm.multi_node_mean_grad(model, zero_fill=True)
    assert_means(model, expect, what="added")
    assert len(comm._grads.groups[0].views) == 5


def check_float16_and_mixed_dtypes(comm):
    r, n = comm.rank, comm.size
    half = kusari_mn.create_communicator("flat", allreduce_grad_dtype=np.float16)
    for sizes in ([1], [2, 3], [7, 1, 5]):  # fewer elements than ranks too
        model = kusari.Chain()
        with model.init_scope():
            for i, s in enumerate(sizes):
                setattr(model, f"p{i}", kusari.Parameter(np.zeros(s, np.float32)))
        for step in range(2):
            for i, p in enumerate(model.params()):
                p.grad = (np.arange(p.size) + r + i + step).astype(np.float32)
            expect = expected_mean(comm, model)
            half.multi_node_mean_grad(model)
            assert_means(model, expect, rtol=2e-3, what=f"fp16 {sizes}")
            for p in model.params():
                assert p.grad.dtype == np.float32
    for shape in ((5,), (3, 4), (1,)):
        x = np.arange(np.prod(shape), dtype=np.float16).reshape(shape) + r
        total = comm.allreduce(x)
        assert total.dtype == np.float16 and total.shape == shape
        np.testing.assert_allclose(total, n * (x - r) + sum(range(n)))
    # float64 and float32 parameters: one buffer (one Allreduce) per dtype
    model = kusari.Chain()
    with model.init_scope():
        model.d = kusari.Parameter(np.zeros(3, np.float64))
        model.f = kusari.Parameter(np.zeros(2, np.float32))
    model.d.grad = np.full(3, r + 1.0)
    model.f.grad = np.full(2, 2.0 * r, np.float32)
    comm.multi_node_mean_grad(model)
    assert model.d.grad.dtype == np.float64 and model.f.grad.dtype == np.float32
    np.testing.assert_allclose(model.d.grad, np.full(3, (n + 1) / 2))
    np.testing.assert_allclose(model.f.grad, np.full(2, n - 1.0))


def main():
    comm = kusari_mn.create_communicator("naive")
    check_in_place_and_replaced(kusari_mn.create_communicator("flat"))
    check_backward(kusari_mn.create_communicator("flat"), use_cleargrads=True)
    check_backward(kusari_mn.create_communicator("flat"), use_cleargrads=False)
    check_none_lazy_and_added(kusari_mn.create_communicator("flat"))
    check_float16_and_mixed_dtypes(comm)
    print(f"GRAD-BUFFER-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
