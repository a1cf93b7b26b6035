#!/usr/bin/env python
"""Data-parallel ImageNet training with kusari_mn (ChainerMN's example, on kusari).

The list files hold one ``path label`` pair per line, paths relative to
``--root`` (as written by ``make_tiny_imagenet.py``, or by the usual ImageNet
preparation scripts). Images are decoded with Pillow, randomly cropped to the
model's input size and flipped (centre crop for validation), and the mean
image is subtracted.

    mpiexec -n 8 python train_imagenet.py train.txt val.txt --root /data/ilsvrc \\
        --mean mean.npy --arch resnet50 --communicator pure_nccl --device @cupy
"""

import argparse
import os
import random

import numpy as np
from models import ARCHS

import kusari
import kusari_mn
from kusari import training
from kusari.training import extensions


class PreprocessedDataset(kusari.dataset.DatasetMixin):
    """Crop (random or centre), flip, subtract the mean, scale to [0, 1]."""

    def __init__(self, path, root, mean, crop_size, random_crop=True):
        self.base = kusari.datasets.LabeledImageDataset(path, root)
        self.mean = mean.astype(np.float32)
        self.crop_size = crop_size
        self.random_crop = random_crop

    def __len__(self):
        return len(self.base)

    def get_example(self, i):
        image, label = self.base[i]
        _, h, w = image.shape
        size = self.crop_size
        if h < size or w < size:
            raise ValueError(f"image {i} is {h}x{w}, smaller than the crop size {size}")
        if self.random_crop:
            top = random.randint(0, h - size)
            left = random.randint(0, w - size)
            if random.randint(0, 1):
                image = image[:, :, ::-1]
        else:
            top, left = (h - size) // 2, (w - size) // 2
        image = image[:, top : top + size, left : left + size]
        mean = self.mean[:, top : top + size, left : left + size]
        return ((image - mean) * (1.0 / 255.0)).astype(np.float32), label


def read_pairs(path):
    """``[(image path, label)]`` from a list file of ``path label`` lines."""
    pairs = []
    with open(path) as f:
        for line in f:
            if line.strip():
                name, label = line.rsplit(maxsplit=1)
                pairs.append((name, int(label)))
    return pairs


def main():
    parser = argparse.ArgumentParser(description="kusari_mn example: ImageNet")
    parser.add_argument("train", help="training list file")
    parser.add_argument("val", help="validation list file")
    parser.add_argument("--arch", "-a", choices=sorted(ARCHS), default="resnet50")
    parser.add_argument(
        "--batchsize",
        "-B",
        type=int,
        default=32,
        help="training mini-batch size per process",
    )
    parser.add_argument("--val_batchsize", "-b", type=int, default=250)
    parser.add_argument("--epoch", "-E", type=int, default=10)
    parser.add_argument(
        "--communicator", default=None, help="default: pure_nccl on GPU, naive on CPU"
    )
    parser.add_argument(
        "--device",
        "-d",
        default="@numpy",
        help="'@numpy', or '@cupy' for the GPU of the local rank",
    )
    parser.add_argument(
        "--insize",
        type=int,
        default=None,
        help="crop size (default: the architecture's)",
    )
    parser.add_argument("--initmodel", help="initialize the model from this NPZ")
    parser.add_argument(
        "--loaderjob",
        "-j",
        type=int,
        default=None,
        help="data loading processes per rank",
    )
    parser.add_argument("--mean", "-m", default="mean.npy")
    parser.add_argument(
        "--resume",
        "-r",
        default="",
        help="snapshot to resume from (one per rank: name.<rank>)",
    )
    parser.add_argument("--out", "-o", default="result")
    parser.add_argument("--root", "-R", default=".")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    on_gpu = args.device.startswith("@cupy")
    communicator = args.communicator or ("pure_nccl" if on_gpu else "naive")
    comm = kusari_mn.create_communicator(communicator)
    device = kusari.get_device(f"@cupy:{comm.intra_rank}" if on_gpu else args.device)
    random.seed(args.seed + comm.rank)  # different crops on each rank
    np.random.seed(args.seed)

    if comm.rank == 0:
        print("==========================================")
        print(f"Num process (COMM_WORLD): {comm.size}")
        print(f"Using {communicator} communicator on {device}")
        print(f"Using {args.arch} arch")
        print(f"Num Minibatch-size: {args.batchsize}")
        print(f"Num epoch: {args.epoch}")
        print("==========================================")

    # The number of classes, from the training list on rank 0.
    n_class = None
    if comm.rank == 0:
        n_class = 1 + max(label for _, label in read_pairs(args.train))
    n_class = comm.bcast_obj(n_class)

    model = ARCHS[args.arch](n_class=n_class)
    insize = args.insize or model.insize
    # Create lazily sized layers now, so that setup broadcasts rank 0's weights.
    with kusari.using_config("train", False):
        model(np.zeros((1, 3, insize, insize), np.float32), np.zeros(1, np.int32))
    if args.initmodel:
        kusari.serializers.load_npz(args.initmodel, model)
    model.to_device(device)
    device.use()

    optimizer = kusari_mn.create_multi_node_optimizer(
        kusari.optimizers.MomentumSGD(lr=0.01, momentum=0.9), comm
    )
    optimizer.setup(model)
    optimizer.add_hook(kusari.optimizer_hooks.WeightDecay(1e-4))

    mean = np.load(args.mean)
    # Rank 0 reads the list files; every rank gets its share of the pairs
    # and decodes its own images.
    if comm.rank == 0:
        train_pairs, val_pairs = read_pairs(args.train), read_pairs(args.val)
    else:
        train_pairs, val_pairs = None, None
    train_pairs = kusari_mn.scatter_dataset(
        train_pairs, comm, shuffle=True, seed=args.seed
    )
    val_pairs = kusari_mn.scatter_dataset(val_pairs, comm)
    train = PreprocessedDataset(list(train_pairs), args.root, mean, insize)
    val = PreprocessedDataset(list(val_pairs), args.root, mean, insize, False)

    train_iter = kusari.iterators.MultiprocessIterator(
        train, args.batchsize, n_processes=args.loaderjob
    )
    val_iter = kusari.iterators.MultiprocessIterator(
        val,
        args.val_batchsize,
        repeat=False,
        shuffle=False,
        n_processes=args.loaderjob,
    )

    updater = training.StandardUpdater(train_iter, optimizer, device=device)
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # Batch normalization statistics differ per rank: average them before
    # evaluating and saving.
    trainer.extend(
        kusari_mn.extensions.AllreducePersistent(model, comm), trigger=(1, "epoch")
    )
    evaluator = extensions.Evaluator(val_iter, model, device=device)
    evaluator = kusari_mn.create_multi_node_evaluator(evaluator, comm)
    trainer.extend(evaluator, trigger=(1, "epoch"))
    # One snapshot file per rank (snapshot_epoch_<n>.<rank>), loaded back
    # automatically when the job is restarted with the same --out.
    snapshot = extensions.snapshot(
        filename="snapshot_epoch_{.updater.epoch}", autoload=True
    )
    trainer.extend(
        kusari_mn.extensions.multi_node_snapshot(comm, snapshot, [0]),
        trigger=(1, "epoch"),
    )

    if comm.rank == 0:
        trainer.extend(extensions.LogReport(trigger=(10, "iteration")))
        trainer.extend(extensions.observe_lr(), trigger=(10, "iteration"))
        trainer.extend(
            extensions.PrintReport(
                [
                    "epoch",
                    "iteration",
                    "main/loss",
                    "validation/main/loss",
                    "main/accuracy",
                    "validation/main/accuracy",
                    "lr",
                    "elapsed_time",
                ]
            ),
            trigger=(10, "iteration"),
        )

    if args.resume:
        kusari.serializers.load_npz(f"{args.resume}.{comm.rank}", trainer)

    trainer.run()
    if comm.rank == 0:
        kusari.serializers.save_npz(os.path.join(args.out, "model.npz"), model)


if __name__ == "__main__":
    main()
