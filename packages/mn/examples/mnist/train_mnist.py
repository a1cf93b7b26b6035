#!/usr/bin/env python
"""Data-parallel MNIST with kusari_mn (ChainerMN's example, on kusari).

Each process trains the same MLP on its share of MNIST; gradients are
averaged over all processes at every step. Run with e.g.

    mpiexec -n 4 python train_mnist.py --communicator naive
"""

import argparse

import kusari
import kusari.functions as F
import kusari.links as L
import kusari_mn
from kusari import training
from kusari.training import extensions


class MLP(kusari.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            # Sizes given (not None) so that the weights exist before
            # optimizer.setup, which broadcasts rank 0's to every process.
            self.l1 = L.Linear(784, n_units)
            self.l2 = L.Linear(n_units, n_units)
            self.l3 = L.Linear(n_units, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def main():
    parser = argparse.ArgumentParser(description="kusari_mn example: MNIST")
    parser.add_argument(
        "--batchsize",
        "-b",
        type=int,
        default=100,
        help="Number of images in each mini-batch (per process)",
    )
    parser.add_argument(
        "--communicator",
        type=str,
        default=None,
        help="Communicator (default: pure_nccl on GPU, naive on CPU)",
    )
    parser.add_argument(
        "--epoch",
        "-e",
        type=int,
        default=20,
        help="Number of sweeps over the dataset to train",
    )
    parser.add_argument(
        "--device",
        "-d",
        type=str,
        default="@numpy",
        help="'@numpy', or '@cupy' to use the GPU of the local rank",
    )
    parser.add_argument(
        "--out", "-o", default="result", help="Directory to output the result"
    )
    parser.add_argument("--unit", "-u", type=int, default=1000, help="Number of units")
    parser.add_argument(
        "--seed", type=int, default=0, help="Seed of the data shuffling"
    )
    args = parser.parse_args()

    on_gpu = args.device.startswith("@cupy")
    communicator = args.communicator or ("pure_nccl" if on_gpu else "naive")
    comm = kusari_mn.create_communicator(communicator)
    # One GPU per process: the local rank picks it.
    device = kusari.get_device(f"@cupy:{comm.intra_rank}" if on_gpu else args.device)

    if comm.rank == 0:
        print("==========================================")
        print(f"Num process (COMM_WORLD): {comm.size}")
        print(f"Using {communicator} communicator on {device}")
        print(f"Num unit: {args.unit}")
        print(f"Num Minibatch-size: {args.batchsize}")
        print(f"Num epoch: {args.epoch}")
        print("==========================================")

    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(device)
    device.use()

    optimizer = kusari_mn.create_multi_node_optimizer(kusari.optimizers.Adam(), comm)
    optimizer.setup(model)

    # Rank 0 reads the dataset and sends each process its share.
    if comm.rank == 0:
        train, test = kusari.datasets.get_mnist()
    else:
        train, test = None, None
    train = kusari_mn.scatter_dataset(train, comm, shuffle=True, seed=args.seed)
    test = kusari_mn.scatter_dataset(test, comm, shuffle=True, seed=args.seed)

    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )

    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # Resume from the newest checkpoint every process has, if any.
    checkpointer = kusari_mn.create_multi_node_checkpointer(name="mnist", comm=comm)
    checkpointer.maybe_load(trainer, optimizer)
    trainer.extend(checkpointer, trigger=(1000, "iteration"))

    # Evaluate on every process's share; report the mean over processes.
    evaluator = extensions.Evaluator(test_iter, model, device=device)
    evaluator = kusari_mn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator)

    # Only rank 0 writes logs and prints.
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
