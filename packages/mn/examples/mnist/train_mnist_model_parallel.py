#!/usr/bin/env python
"""Model-parallel MNIST with kusari_mn on exactly two processes.

The MLP is cut in two: rank 0 holds the first and last layers, rank 1 the
middle one. Activations travel 0 -> 1 -> 0 in forward and gradients back
in backward (``MultiNodeChainList``). Only rank 0 reads data; rank 1
iterates an empty dataset of the same length to stay in step.

    mpiexec -n 2 python train_mnist_model_parallel.py
"""

import argparse

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
from kusari import training
from kusari.training import extensions


class MLP0SubA(kusari.Chain):
    def __init__(self, n_units):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(784, n_units)

    def forward(self, x):
        return F.relu(self.l1(x))


class MLP0SubB(kusari.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l3 = L.Linear(n_units, n_out)

    def forward(self, h):
        return self.l3(h)


class MLP0(kusari_mn.MultiNodeChainList):
    """Rank 0's part: l1 -> (rank 1) -> l3."""

    def __init__(self, comm, n_units, n_out):
        super().__init__(comm=comm)
        self.add_link(MLP0SubA(n_units), rank_in=None, rank_out=1)
        self.add_link(MLP0SubB(n_units, n_out), rank_in=1, rank_out=None)


class MLP1Sub(kusari.Chain):
    def __init__(self, n_units):
        super().__init__()
        with self.init_scope():
            self.l2 = L.Linear(n_units, n_units)

    def forward(self, h):
        return F.relu(self.l2(h))


class MLP1(kusari_mn.MultiNodeChainList):
    """Rank 1's part: receives from rank 0, sends back to rank 0."""

    def __init__(self, comm, n_units):
        super().__init__(comm=comm)
        self.add_link(MLP1Sub(n_units), rank_in=0, rank_out=0)


def main():
    parser = argparse.ArgumentParser(description="kusari_mn: model-parallel MNIST")
    parser.add_argument("--batchsize", "-b", type=int, default=100)
    parser.add_argument("--epoch", "-e", type=int, default=20)
    parser.add_argument("--communicator", type=str, default="naive")
    parser.add_argument("--device", "-d", type=str, default="@numpy")
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--unit", "-u", type=int, default=1000)
    args = parser.parse_args()

    comm = kusari_mn.create_communicator(args.communicator)
    if comm.size != 2:
        raise ValueError(
            f"this example runs on exactly 2 processes, got {comm.size} "
            "(mpiexec -n 2 ...)"
        )
    device = kusari.get_device(
        f"@cupy:{comm.intra_rank}" if args.device.startswith("@cupy") else args.device
    )
    if comm.rank == 0:
        model = L.Classifier(MLP0(comm, args.unit, 10))
    else:
        model = MLP1(comm, args.unit)
    model.to_device(device)
    device.use()
    optimizer = kusari.optimizers.Adam()
    optimizer.setup(model)

    train, test = kusari.datasets.get_mnist() if comm.rank == 0 else (None, None)
    # Rank 1 gets no data, but must run as many iterations as rank 0.
    lengths = comm.bcast_obj((len(train), len(test)) if comm.rank == 0 else None)
    if comm.rank == 1:
        train = kusari_mn.create_empty_dataset(range(lengths[0]))
        test = kusari_mn.create_empty_dataset(range(lengths[1]))

    train_iter = kusari.iterators.SerialIterator(train, args.batchsize, shuffle=False)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    if comm.rank == 0:
        trainer.extend(extensions.LogReport())
        trainer.extend(
            extensions.PrintReport(
                [
                    "epoch",
                    "main/loss",
                    "validation/main/loss",
                    "main/accuracy",
                    "validation/main/accuracy",
                    "elapsed_time",
                ]
            )
        )
    trainer.run()


if __name__ == "__main__":
    main()
