"""The multi-node optimizer with backward writing into the gradient buffer
(``kusari.grad_destinations``) against the same training with
backward handing out new arrays: the same parameters bit for bit, on every
rank, with the ring and with one Allreduce, plain and double-buffered, with
a layer that gets no gradient, and with the ``dummy`` communicator.

Prints ``GRAD-DESTINATIONS-OK <rank>``.
"""

import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
import kusari_mn.optimizers as mn_optimizers


class Net(kusari.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.a = L.Linear(5, 7)
            self.b = L.Linear(7, 3)
            self.unused = L.Linear(2, 2)  # never gets a gradient

    def forward(self, x):
        return self.b(F.tanh(self.a(x)))


def train(name, use_destinations, ring, double_buffering, steps=7):
    comm = kusari_mn.create_communicator(name)
    if ring:  # every group on the ring, however small
        comm._ring_min_shard_bytes = 1
    np.random.seed(100 + comm.rank)  # rank 0's weights are broadcast
    model = Net()
    opt = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.MomentumSGD(lr=0.05),
        comm,
        double_buffering=double_buffering,
    )
    opt.setup(model)
    object.__setattr__(opt, "_use_destinations", use_destinations)
    rng = np.random.RandomState(comm.rank)
    for _ in range(steps):
        x = rng.rand(4, 5).astype(np.float32)
        opt.update(lambda x=x: F.sum(model(x) ** 2))
    if double_buffering:
        opt.wait()
    return comm, {k: p.array.copy() for k, p in model.namedparams()}


def check(name, ring, double_buffering):
    calls = []
    original = mn_optimizers.grad_destinations

    def counting(pairs):
        calls.append(len(pairs))
        return original(pairs)

    mn_optimizers.grad_destinations = counting
    try:
        _, plain = train(name, False, ring, double_buffering)
        assert not calls
        comm, into = train(name, True, ring, double_buffering)
    finally:
        mn_optimizers.grad_destinations = original
    what = f"{name} ring={ring} double_buffering={double_buffering}"
    assert calls, f"{what}: backward never wrote into the buffer"
    for k in plain:
        np.testing.assert_array_equal(into[k], plain[k], err_msg=f"{what} {k}")
    if name != "dummy":  # the others average: every rank ends the same
        everyone = comm.allgather_obj(into)
        for k in into:
            for other in everyone:
                np.testing.assert_array_equal(other[k], into[k], err_msg=f"{what} {k}")


def main():
    for ring in (False, True):
        for double_buffering in (False, True):
            check("flat", ring, double_buffering)
    check("dummy", False, False)
    comm = kusari_mn.create_communicator("naive")
    print(f"GRAD-DESTINATIONS-OK {comm.rank}", flush=True)


if __name__ == "__main__":
    main()
