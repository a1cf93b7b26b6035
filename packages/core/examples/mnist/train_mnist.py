#!/usr/bin/env python
"""Train a multi-layer perceptron on MNIST (784-1000-1000-10, Adam, batch 100).

The same script as Chainer's train_mnist example, on kusari:

    python train_mnist.py --epoch 20 --out result

MNIST comes from the dataset cache (``$KUSARI_DATASET_ROOT``) or is downloaded
into it. Without network access and without a cached copy, it trains on the
real handwritten digits that ship with scikit-learn (UCI's 8x8 digits, 1,797
images) instead, and says which data it used.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training
from kusari.training import extensions


class MLP(kusari.Chain):
    """Two hidden ReLU layers; input size inferred on the first call."""

    def __init__(self, n_units: int, n_out: int) -> None:
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(None, n_units)
            self.l2 = L.Linear(None, n_units)
            self.l3 = L.Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def _sklearn_digits():
    """UCI's 8x8 handwritten digits (bundled with scikit-learn), split 80/20."""
    import numpy as np
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)  # pixel values are 0..16
    t = digits.target.astype(np.int32)
    order = np.random.default_rng(0).permutation(len(x))
    n_train = int(len(x) * 0.8)
    train, test = order[:n_train], order[n_train:]
    return kusari.datasets.TupleDataset(
        x[train], t[train]
    ), kusari.datasets.TupleDataset(x[test], t[test])


def load_data(dataset: str = "auto"):
    """``(train, test), name`` for ``--dataset`` (auto: MNIST, else digits)."""
    if dataset in ("auto", "mnist"):
        try:
            return kusari.datasets.get_mnist(), "MNIST"
        except Exception as e:  # any download failure means offline
            if dataset == "mnist":
                raise SystemExit(
                    f"MNIST is not available: {type(e).__name__}: {e}"
                ) from e
            reason = f"{type(e).__name__}: {e}"
    else:
        reason = "--dataset digits"
    try:
        data = _sklearn_digits()
    except ImportError:
        raise SystemExit(
            f"MNIST is not available ({reason}) and scikit-learn, whose bundled "
            "digits are the offline fallback, is not installed: connect to the "
            "network once, or `pip install scikit-learn`."
        ) from None
    print(
        f"MNIST is not available ({reason}); training on scikit-learn's bundled "
        "UCI handwritten digits (8x8) instead.",
        file=sys.stderr,
    )
    return data, "UCI digits (8x8, from scikit-learn)"


def _save_args(args: argparse.Namespace, out: str) -> None:
    """Write the command line's settings as JSON to ``out/args`` (as Chainer's
    examples do), so kusari-ui shows them next to the run."""
    import json
    import tempfile

    os.makedirs(out, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".args.")
    with os.fdopen(fd, "w") as f:
        json.dump(vars(args), f, indent=1)
    os.replace(tmp, os.path.join(out, "args"))


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--batchsize", "-b", type=int, default=100)
    parser.add_argument("--epoch", "-e", type=int, default=20)
    parser.add_argument(
        "--frequency",
        "-f",
        type=int,
        default=-1,
        help="snapshot every this many epochs (-1: at the end)",
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="'@numpy', '@cupy:0', or an int (-1 for the CPU)",
    )
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--resume", "-r", default="", help="snapshot to resume from")
    parser.add_argument(
        "--autoload",
        action="store_true",
        help="resume from the latest snapshot in --out if any",
    )
    parser.add_argument("--unit", "-u", type=int, default=1000)
    parser.add_argument(
        "--dataset",
        choices=("auto", "mnist", "digits"),
        default="auto",
        help="auto: MNIST (cache or download), else scikit-learn's digits",
    )
    parser.add_argument("--noplot", dest="plot", action="store_false")
    parser.add_argument(
        "--max-iterations",
        type=int,
        default=0,
        help="stop after this many iterations (smoke tests)",
    )
    args = parser.parse_args(argv)

    device = kusari.get_device(
        int(args.device) if args.device.lstrip("-").isdigit() else args.device
    )
    print(
        f"Device: {device}  Units: {args.unit}  Minibatch: {args.batchsize}  "
        f"Epochs: {args.epoch}"
    )

    model = L.Classifier(MLP(args.unit, 10))
    model.to_device(device)
    device.use()
    optimizer = kusari.optimizers.Adam()
    optimizer.setup(model)

    (train, test), name = load_data(args.dataset)
    _save_args(args, args.out)
    print(f"Dataset: {name} ({len(train)} train / {len(test)} test examples)")
    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    test_iter = kusari.iterators.SerialIterator(
        test, args.batchsize, repeat=False, shuffle=False
    )
    updater = training.updaters.StandardUpdater(train_iter, optimizer, device=device)
    stop = (
        (args.max_iterations, "iteration")
        if args.max_iterations
        else (args.epoch, "epoch")
    )
    trainer = training.Trainer(updater, stop, out=args.out)

    # Evaluated at the end of each epoch (not before training, which would
    # average an untrained score into epoch 1's log entry).
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))
    trainer.extend(extensions.DumpGraph("main/loss"))
    frequency = args.epoch if args.frequency == -1 else max(1, args.frequency)
    trainer.extend(
        extensions.snapshot(n_retains=1, autoload=args.autoload),
        trigger=(frequency, "epoch"),
    )
    trainer.extend(extensions.LogReport(), call_before_training=True)
    if args.plot and extensions.PlotReport.available():
        trainer.extend(
            extensions.PlotReport(
                ["main/loss", "validation/main/loss"], "epoch", file_name="loss.png"
            ),
            call_before_training=True,
        )
        trainer.extend(
            extensions.PlotReport(
                ["main/accuracy", "validation/main/accuracy"],
                "epoch",
                file_name="accuracy.png",
            ),
            call_before_training=True,
        )
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
        ),
        call_before_training=True,
    )
    trainer.extend(extensions.ProgressBar())
    if args.resume:
        kusari.serializers.load_npz(args.resume, trainer)

    trainer.run()

    accuracy = float("nan")
    log = trainer.get_extension("LogReport").log
    if log and "validation/main/accuracy" in log[-1]:
        accuracy = float(log[-1]["validation/main/accuracy"])
    out = os.path.abspath(args.out)
    print(f"\nFinal test accuracy: {accuracy:.4f}")
    plots = (
        ", loss.png and accuracy.png (plots)"
        if os.path.exists(os.path.join(out, "loss.png"))
        else ""
    )
    print(
        f"Results are in {out}: 'log' (JSON per epoch), 'args', snapshot_iter_*, "
        f"cg.dot (the graph){plots}."
    )
    return accuracy


if __name__ == "__main__":
    main()
