"""Differentiable communication and MultiNodeChainList, checked against
gradients computed by hand or by a single-process model.

Prints ``MODEL-PARALLEL-OK <rank>``; any failure aborts the job.
"""

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
import kusari_mn.functions as mnf


def var(rank, shape=(2, 3)):
    return kusari.Variable(
        (np.arange(np.prod(shape)).reshape(shape) + rank).astype(np.float32)
    )


def check_collectives(comm):
    r, n = comm.rank, comm.size
    tri = n * (n + 1) / 2
    x = var(r)
    ys = mnf.allgather(comm, x)
    for i, y in enumerate(ys):
        np.testing.assert_array_equal(y.array, var(i).array)
    (F.sum(F.stack(ys)) * (r + 1)).backward()
    np.testing.assert_allclose(x.grad, np.full((2, 3), tri))

    xs = [var(r + j, (j + 1,)) for j in range(n)]
    ys = mnf.alltoall(comm, xs)
    for i, y in enumerate(ys):
        np.testing.assert_array_equal(y.array, var(i + r, (r + 1,)).array)
    sum(F.sum(y) for y in ys).__mul__(r + 1).backward()
    for j, xj in enumerate(xs):
        np.testing.assert_allclose(xj.grad, np.full(j + 1, j + 1.0))

    root = n - 1
    x = var(7)
    y = mnf.bcast(comm, x if r == root else None, root=root)
    np.testing.assert_array_equal(y.array, var(7).array)
    (F.sum(y) * (r + 1)).backward()
    if r == root:
        np.testing.assert_allclose(x.grad, np.full((2, 3), tri))

    x = var(r)
    out = mnf.gather(comm, x, root=0)
    if r == 0:
        for i, y in enumerate(out):
            np.testing.assert_array_equal(y.array, var(i).array)
        sum(F.sum(y) * (i + 1) for i, y in enumerate(out)).backward()
    else:
        out.backward()  # the delegate receives this rank's gradient
    np.testing.assert_allclose(x.grad, np.full((2, 3), r + 1.0))

    xs = [var(10 * i) for i in range(n)] if r == 0 else None
    y = mnf.scatter(comm, xs, root=0)
    np.testing.assert_array_equal(y.array, var(10 * r).array)
    (F.sum(y) * (r + 1)).backward()
    if r == 0:
        for i, xi in enumerate(xs):
            np.testing.assert_allclose(xi.grad, np.full((2, 3), i + 1.0))


def check_send_recv(comm):
    r, n = comm.rank, comm.size
    if n < 2 or r > 1:
        return
    if r == 0:
        x = var(1)
        phi = mnf.send(x * 2, comm, rank=1)
        phi.backward()
        np.testing.assert_allclose(x.grad, 32 * var(1).array)  # d/dx sum((2*2x)^2)
        # tuple send, then receive back (delegate connects both parts)
        a, b = var(0, (3,)), var(1, (2,))
        phi = mnf.send((a, b), comm, rank=1, tag=4)
        back = mnf.recv(comm, rank=1, delegate_variable=phi, tag=5)
        F.sum(back * back).backward()
        # rank 1 returns z = 3 sum(a) + 1.5 sum(b); loss = z^2
        z = 3 * a.array.sum() + 1.5 * b.array.sum()
        np.testing.assert_allclose(a.grad, np.full(3, 6.0 * z))
        np.testing.assert_allclose(b.grad, np.full(2, 3.0 * z))
    else:
        y = mnf.recv(comm, rank=0)
        F.sum((y * 2) ** 2).backward()
        a, b = mnf.recv(comm, rank=0, tag=4)
        z = F.sum(a * 3.0) + F.sum(b) * 1.5
        phi = mnf.send(F.reshape(z, (1,)), comm, rank=0, tag=5)
        phi.backward(retain_grad=True)
        # back = z (shape (1,)); loss = back^2 -> dloss/dz = 2z
        zval = float(z.array)
        np.testing.assert_allclose(a.grad, np.full(3, 6.0 * zval))
        np.testing.assert_allclose(b.grad, np.full(2, 3.0 * zval))
    x = var(r, (2,))
    delegate = kusari.Variable(np.zeros((), np.float32))
    y = mnf.pseudo_connect(delegate, x)
    np.testing.assert_array_equal(y.array, x.array)
    F.sum(y * 3.0).backward()
    np.testing.assert_allclose(x.grad, np.full(2, 3.0))
    np.testing.assert_array_equal(delegate.grad, np.zeros((), np.float32))


def check_chain_list(comm):
    r, n = comm.rank, comm.size
    if n < 2:
        return
    np.random.seed(0)  # the same layers on every rank
    first, middle, last = L.Linear(3, 4), L.Linear(4, 5), L.Linear(5, 2)
    for link in (first, middle, last):
        link.cleargrads()  # a fresh parameter's gradient is NaN-filled
    x = np.random.RandomState(2).randn(6, 3).astype(np.float32)
    t = np.random.RandomState(3).randint(0, 2, 6).astype(np.int32)
    # rank 0: first -> rank 1: middle -> rank 0: last -> loss (ChainerMN's
    # round-trip example); ranks >= 2 take no part.
    if r == 0:
        model = kusari_mn.MultiNodeChainList(comm)
        model.add_link(first, rank_in=None, rank_out=1)
        model.add_link(last, rank_in=1, rank_out=None)
        loss = F.softmax_cross_entropy(model(x), t)
        loss.backward()
        grads = {"first": first.W.grad.copy(), "last": last.W.grad.copy()}
        mid = comm.recv_obj(1)
    elif r == 1:
        model = kusari_mn.MultiNodeChainList(comm)
        model.add_link(middle, rank_in=0, rank_out=0)
        model(None).backward()
        comm.send_obj(middle.W.grad.copy(), 0)
    if r == 0:
        a, b, c = first.copy("copy"), middle.copy("copy"), last.copy("copy")
        for link in (a, b, c):
            link.cleargrads()
        F.softmax_cross_entropy(c(b(a(x))), t).backward()
        np.testing.assert_allclose(grads["first"], a.W.grad, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(grads["last"], c.W.grad, rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(mid, b.W.grad, rtol=1e-5, atol=1e-7)
    # a pipeline over every rank: 0 -> 1 -> ... -> n-1 computes the loss
    np.random.seed(5)
    layers = [L.Linear(3, 3) for _ in range(n)]
    layers[r].cleargrads()
    model = kusari_mn.MultiNodeChainList(comm)
    model.add_link(
        layers[r],
        rank_in=None if r == 0 else r - 1,
        rank_out=None if r == n - 1 else r + 1,
    )
    if r == 0:
        model(x).backward()
    elif r == n - 1:
        F.sum(model(None) ** 2).backward()
    else:
        model(None).backward()
    grads = comm.gather_obj(layers[r].W.grad.copy())
    if r == 0:
        h = kusari.Variable(x)
        refs = [layer.copy("copy") for layer in layers]
        for layer in refs:
            layer.cleargrads()
            h = layer(h)
        F.sum(h**2).backward()
        for g, ref in zip(grads, refs):
            np.testing.assert_allclose(g, ref.W.grad, rtol=1e-5, atol=1e-6)


def check_n_step_rnn(comm):
    r, n = comm.rank, comm.size
    if n < 2 or r > 1:
        return
    np.random.seed(7)
    lstm0, lstm1 = L.NStepLSTM(1, 3, 4, 0.0), L.NStepLSTM(1, 2, 4, 0.0)
    xs = [np.random.RandomState(i).randn(5 - i, 3).astype(np.float32) for i in range(2)]
    # rank 1's own inputs; only the LSTM states travel between the ranks
    xs1 = [
        np.random.RandomState(10 + i).randn(4, 2).astype(np.float32) for i in range(2)
    ]
    for link in (lstm0, lstm1):
        link.cleargrads()
    if r == 0:
        rnn = kusari_mn.links.create_multi_node_n_step_rnn(lstm0, comm, rank_out=1)
        hy, cy, ys, delegate = rnn(xs)
        delegate.backward()
        got = comm.recv_obj(1)
        a, b = lstm0.copy("copy"), lstm1.copy("copy")
        a.cleargrads()
        b.cleargrads()
        h0, c0, _ = a(None, None, xs)
        h1, c1, ys1 = b(h0, c0, xs1)
        loss = sum(F.sum(y * y) for y in ys1) + F.sum(h1) + F.sum(c1)
        loss.backward()
        np.testing.assert_allclose(got["loss"], float(loss.array), rtol=1e-5)
        for name, g in got["grads"].items():
            np.testing.assert_allclose(
                g, dict(b.namedparams())[name].grad, rtol=1e-4, atol=1e-6
            )
        for name, p in lstm0.namedparams():
            np.testing.assert_allclose(
                p.grad,
                dict(a.namedparams())[name].grad,
                rtol=1e-4,
                atol=1e-6,
                err_msg=name,
            )
    else:
        rnn = kusari_mn.links.create_multi_node_n_step_rnn(lstm1, comm, rank_in=0)
        hy, cy, ys, delegate = rnn(xs1)
        assert delegate is None
        loss = sum(F.sum(y * y) for y in ys) + F.sum(hy) + F.sum(cy)
        loss.backward()
        comm.send_obj(
            {
                "loss": float(loss.array),
                "grads": {k: p.grad for k, p in lstm1.namedparams()},
            },
            0,
        )


def main():
    comm = kusari_mn.create_communicator("naive")
    check_collectives(comm)
    check_send_recv(comm)
    check_chain_list(comm)
    check_n_step_rnn(comm)
    print(f"MODEL-PARALLEL-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
