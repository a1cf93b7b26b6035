#!/usr/bin/env python
"""Recursive neural network over parse trees (Socher et al.): the network's
shape is each sentence's tree, built as ordinary Python recursion.

Every node's vector is tanh(W [left; right] + b) over its children (a word
embedding at the leaves), and every node is classified. This is where
define-by-run shines: no padding, no static graph, one graph per tree.

    python train_recursive.py --epoch 20

Offline (and by default) it learns generated trees whose labels follow a
composition rule with negation, so the tree structure matters.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training


class RecursiveNet(kusari.Chain):
    def __init__(self, n_vocab: int, n_units: int, n_label: int = 2) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l = L.Linear(n_units * 2, n_units)
            self.w = L.Linear(n_units, n_label)

    def traverse(self, node: dict, losses: list, counts: list):
        """Vector of `node`; appends each node's loss and correctness."""
        if "children" in node:
            left = self.traverse(node["children"][0], losses, counts)
            right = self.traverse(node["children"][1], losses, counts)
            v = F.tanh(self.l(F.concat((left, right), axis=1)))
        else:
            v = self.embed(self.xp.array([node["word"]], np.int32))
        y = self.w(v)
        t = self.xp.array([node["label"]], np.int32)
        losses.append(F.softmax_cross_entropy(y, t))
        counts.append(int(y.array.argmax()) == node["label"])
        return v

    def forward(self, *trees):
        losses: list = []
        counts: list = []
        for tree in trees:
            self.traverse(tree, losses, counts)
        loss = F.add(*losses) / len(losses) if len(losses) > 1 else losses[0]
        kusari.report({"loss": loss, "accuracy": float(np.mean(counts))}, self)
        return loss


def convert(batch, device):
    return tuple(batch)  # trees stay Python objects; arrays are made per node


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=20, batchsize=25)
    p.add_argument("--unit", "-u", type=int, default=30)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    from _offline import synthetic_trees

    trees = synthetic_trees()
    train, test = trees[100:], trees[:100]
    print(f"{len(train)} training trees, {len(test)} test trees (generated)")
    model = RecursiveNet(20, args.unit)
    model.to_device(device)
    optimizer = kusari.optimizers.AdaGrad(lr=0.1)
    optimizer.setup(model)
    optimizer.add_hook(kusari.optimizer_hooks.WeightDecay(1e-4))
    train_iter = kusari.iterators.SerialIterator(train, args.batchsize)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device
    )
    trainer = _common.make_trainer(updater, args)
    _common.add_reporting(
        trainer, ["main/loss", "main/accuracy"], progress=not args.max_iterations
    )
    _common.resume(trainer, args.resume)
    trainer.run()

    with kusari.no_backprop_mode():
        root_correct = []
        for tree in test:
            losses, counts = [], []
            model.traverse(tree, losses, counts)
            root_correct.append(counts[-1])
    accuracy = float(np.mean(root_correct))
    print(f"test root accuracy: {accuracy:.3f}")
    _common.report_done(args)
    return accuracy


if __name__ == "__main__":
    main()
