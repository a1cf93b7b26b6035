"""Data-parallel pieces (datasets, optimizer, iterators, evaluators, BN),
checked against single-process NumPy/kusari references.

Prints ``TRAINING-OK <rank>``; any failure aborts the job.
"""

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
from kusari import iterators
from kusari.training import extensions
from kusari_mn.extensions import (
    AllreducePersistent,
    MultiNodeEarlyStoppingTrigger,
    ObservationAggregator,
)
from kusari_mn.links import MultiNodeBatchNormalization, create_mnbn_model


def check_scatter(comm):
    r, n = comm.rank, comm.size
    N = 10
    for shuffle, seed in ((False, None), (True, 3)):
        sub = kusari_mn.scatter_dataset(
            list(range(100, 100 + N)) if r == 0 else None,
            comm,
            shuffle=shuffle,
            seed=seed,
        )
        per = -(-N // n)
        assert len(sub) == per, (len(sub), per)
        everything = sum(comm.allgather_obj(list(sub)), [])
        order = np.random.RandomState(seed).permutation(N) if shuffle else np.arange(N)
        expect = [100 + int(order[i % N]) for i in range(per * n)]
        assert everything == expect, (everything, expect)
    sub = kusari_mn.scatter_dataset(
        list(range(N)) if r == 1 % n else None,
        comm,
        root=1 % n,
        force_equal_length=False,
    )
    assert sum(comm.allgather_obj(list(sub)), []) == list(range(N))
    b, e = kusari_mn.scatter_index(N, comm, force_equal_length=False)
    assert (b, e) == (N * r // n, N * (r + 1) // n)
    assert len(kusari_mn.create_empty_dataset(sub)) == len(sub)


def check_shuffle_data_blocks(comm):
    r, n = comm.rank, comm.size
    from kusari_mn.datasets import shuffle_data_blocks

    mine = list(range(100 * r, 100 * r + 7 * (r + 1)))  # uneven on purpose
    everything = sorted(
        x for k in range(n) for x in range(100 * k, 100 * k + 7 * (k + 1))
    )
    got = shuffle_data_blocks(comm, iter(mine), block_size=3, force_equal_length=False)
    lengths = comm.allgather_obj(len(got))
    assert max(lengths) - min(lengths) <= 1, lengths
    assert sorted(sum(comm.allgather_obj(got), [])) == everything
    got = shuffle_data_blocks(comm, mine, block_size=4)
    assert comm.allgather_obj(len(got)) == [-(-len(everything) // n)] * n
    assert set(sum(comm.allgather_obj(got), [])) == set(everything)


def make_data(rank, n=6):
    rng = np.random.RandomState(100 + rank)
    return rng.randn(n, 3).astype(np.float32), rng.randn(n, 2).astype(np.float32)


def local_grads(model, x, t):
    model.cleargrads()
    F.mean_squared_error(model(x), t).backward()
    return {k: p.grad.copy() for k, p in model.namedparams()}


def check_optimizer(comm, double_buffering):
    r, n = comm.rank, comm.size
    np.random.seed(r)  # different initial weights per rank
    model = L.Linear(3, 2)
    opt = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.SGD(lr=0.1), comm, double_buffering=double_buffering
    )
    opt.setup(model)
    assert opt.lr == 0.1  # attributes are delegated
    lossfun = lambda x, t: F.mean_squared_error(model(x), t)  # noqa: E731
    # setup broadcast rank 0's initial weights
    w0 = comm.bcast_obj(model.W.array.copy() if r == 0 else None)
    np.testing.assert_array_equal(model.W.array, w0)
    ref = L.Linear(3, 2)
    ref.copyparams(model)
    history = []
    for step in range(3):
        xs, ts = make_data(r + 10 * step)
        opt.update(lossfun, xs, ts)
        history.append([make_data(k + 10 * step) for k in range(n)])
    # reference: SGD with the mean gradient; with double buffering each
    # update applies the previous step's gradient (computed before it).
    pending = None
    for batch in history:
        grads = [local_grads(ref, bx, bt) for bx, bt in batch]
        mean = {k: np.mean([g[k] for g in grads], axis=0) for k in grads[0]}
        if double_buffering:
            mean, pending = pending, mean
        if mean is not None:
            for k, p in ref.namedparams():
                p.array -= 0.1 * mean[k]
    for k, p in model.namedparams():
        np.testing.assert_allclose(
            p.array, dict(ref.namedparams())[k].array, rtol=1e-5, atol=1e-6
        )
    everyone = comm.allgather_obj(model.W.array)
    for w in everyone:
        np.testing.assert_array_equal(w, everyone[0])


class Reporting(kusari.Chain):
    def forward(self, x):
        kusari.reporter.report({"value": F.mean(x)}, self)
        return F.mean(x)


def check_evaluators(comm):
    r, n = comm.rank, comm.size
    data = [np.full(2, r + i, np.float32) for i in range(4)]
    it = iterators.SerialIterator(data, 2, repeat=False, shuffle=False)
    ev = kusari_mn.create_multi_node_evaluator(
        extensions.Evaluator(it, Reporting()), comm
    )
    result = ev()
    expect = np.mean([np.mean([k + i for i in range(4)]) for k in range(n)])
    np.testing.assert_allclose(float(result["main/value"]), expect)

    class Summing(kusari_mn.GenericMultiNodeEvaluator):
        def calc_local(self, x):
            return float(x.sum())

        def aggregate(self, results):
            return sum(results), len(results)

    # rank r holds r + 1 batches (10 + r each): uneven on purpose
    local = [np.array([10.0 + r], np.float32)] * (r + 1)
    it = iterators.SerialIterator(local, 1, repeat=False, shuffle=False)
    out = Summing(comm, it, None)()
    if r == 0:
        assert out == (
            sum((10.0 + k) * (k + 1) for k in range(n)),
            sum(k + 1 for k in range(n)),
        ), out
    else:
        assert out is None


def check_persistent(comm):
    r, n = comm.rank, comm.size
    model = kusari.Sequential(L.Linear(2, 2), L.BatchNormalization(2))
    bn = model[1]
    bn.avg_mean[...] = r
    bn.avg_var[...] = 2.0 * r
    w = model[0].W.array.copy()
    AllreducePersistent(model, comm)()
    np.testing.assert_allclose(bn.avg_mean, np.full(2, (n - 1) / 2))
    np.testing.assert_allclose(bn.avg_var, np.full(2, n - 1.0))
    np.testing.assert_array_equal(model[0].W.array, w)  # params untouched


def check_mnbn(comm):
    r, n = comm.rank, comm.size
    rng = np.random.RandomState(0)
    sizes = [k + 2 for k in range(n)]  # uneven local batches
    X = rng.randn(sum(sizes), 3, 2).astype(np.float64)
    G = rng.randn(*X.shape)
    start = sum(sizes[:r])
    x_local = kusari.Variable(X[start : start + sizes[r]])
    mnbn = MultiNodeBatchNormalization(3, comm, dtype=np.float64)
    mnbn.gamma.array[...] = [1.0, 2.0, 0.5]
    mnbn.beta.array[...] = [0.0, 1.0, -1.0]
    y = mnbn(x_local)
    F.sum(y * G[start : start + sizes[r]]).backward()
    ref = L.BatchNormalization(3, dtype=np.float64)
    ref.gamma.array[...] = [1.0, 2.0, 0.5]
    ref.beta.array[...] = [0.0, 1.0, -1.0]
    xv = kusari.Variable(X)
    yr = ref(xv)
    F.sum(yr * G).backward()
    np.testing.assert_allclose(y.array, yr.array[start : start + sizes[r]], atol=1e-10)
    np.testing.assert_allclose(
        x_local.grad, xv.grad[start : start + sizes[r]], atol=1e-10
    )
    gsum = comm.allreduce(mnbn.gamma.grad)
    np.testing.assert_allclose(gsum, ref.gamma.grad, atol=1e-10)
    np.testing.assert_allclose(
        comm.allreduce(mnbn.beta.grad), ref.beta.grad, atol=1e-10
    )
    np.testing.assert_allclose(mnbn.avg_mean, ref.avg_mean, atol=1e-12)
    np.testing.assert_allclose(mnbn.avg_var, ref.avg_var, atol=1e-12)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(mnbn(X).array, ref(X).array, atol=1e-10)

    class Net(kusari.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l = L.Linear(3, 3)
                self.bn = L.BatchNormalization(3)
                self.seq = kusari.ChainList(L.Linear(3, 3), L.BatchNormalization(3))

        def forward(self, x):
            return self.seq[1](self.seq[0](self.bn(self.l(x))))

    net = Net()
    net.bn.avg_mean[...] = 0.25
    mn = create_mnbn_model(net, comm)
    assert isinstance(mn.bn, MultiNodeBatchNormalization)
    assert isinstance(mn.seq[1], MultiNodeBatchNormalization)
    assert isinstance(net.bn, L.BatchNormalization)  # the original is untouched
    np.testing.assert_array_equal(mn.bn.avg_mean, net.bn.avg_mean)
    x = np.random.RandomState(1).randn(4, 3).astype(np.float32)
    with kusari.using_config("train", False):
        np.testing.assert_allclose(mn(x).array, net(x).array, rtol=1e-6)


class FakeUpdater:
    epoch = 0


class FakeTrainer:
    def __init__(self):
        self.observation = {}
        self.updater = FakeUpdater()


def check_aggregator_and_stopping(comm):
    r, n = comm.rank, comm.size
    trainer = FakeTrainer()
    agg = ObservationAggregator(
        comm, "main/loss", "main/mean_loss", comm_trigger=lambda t: True
    )
    trainer.observation = {"main/loss": np.float32(r)}
    agg(trainer)
    np.testing.assert_allclose(trainer.observation["main/mean_loss"], (n - 1) / 2)

    stop = MultiNodeEarlyStoppingTrigger(
        comm,
        check_trigger=lambda t: True,
        monitor="main/loss",
        patience=2,
        max_trigger=lambda t: False,
    )
    # rank 0's loss rises while the others' fall faster: the mean falls for
    # 3 checks, then rises; a local decision on rank 0 would stop earlier.
    fired = []
    for step in range(8):
        others = 10.0 - 3.0 * step if step < 3 else 10.0 + step
        value = float(step) if r == 0 else others
        if n == 1:
            value = 10.0 - step if step < 3 else 10.0 + step
        trainer.observation = {"main/loss": np.float64(value)}
        fired.append(stop(trainer))
    assert fired == [False] * 4 + [True] * 4, fired
    assert comm.allgather_obj(fired) == [fired] * n


def check_iterators(comm):
    r = comm.rank
    data = [np.array([i], np.int32) for i in range(7)]
    master_it = iterators.SerialIterator(data, 3, repeat=False, shuffle=False)
    it = kusari_mn.create_multi_node_iterator(master_it if r == 0 else None, comm)
    batches = [np.concatenate(b).tolist() for b in it]
    assert batches == [[0, 1, 2], [3, 4, 5], [6]], batches
    np.random.seed(r)  # different local seeds before synchronizing
    sit = kusari_mn.create_synchronized_iterator(
        iterators.SerialIterator(data, 7, shuffle=True), comm
    )
    order = np.concatenate(next(sit)).tolist()
    assert sorted(order) == list(range(7))
    assert comm.allgather_obj(order) == [order] * comm.size


def main():
    comm = kusari_mn.create_communicator("flat")
    check_scatter(comm)
    check_shuffle_data_blocks(comm)
    check_optimizer(comm, double_buffering=False)
    check_optimizer(comm, double_buffering=True)
    check_evaluators(comm)
    check_persistent(comm)
    check_mnbn(comm)
    check_aggregator_and_stopping(comm)
    check_iterators(comm)
    print(f"TRAINING-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
