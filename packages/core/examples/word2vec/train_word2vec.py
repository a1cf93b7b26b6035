#!/usr/bin/env python
"""word2vec: skip-gram with negative sampling (Mikolov et al.) on PTB.

Each word predicts the words in a window around it; negative sampling turns
the softmax over the vocabulary into a few binary classifications against
words drawn from the unigram distribution to the power 0.75.

    python train_word2vec.py --epoch 10 --unit 100 --window 5

Offline, a generated bigram corpus stands in for PTB. Prints the nearest
neighbours of a few words at the end.
"""

from __future__ import annotations

import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training


class SkipGram(kusari.Chain):
    def __init__(self, n_vocab: int, n_units: int, counts, n_negative: int) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(
                n_vocab, n_units, initialW=kusari.initializers.Uniform(1.0 / n_units)
            )
            self.loss_func = L.NegativeSampling(n_units, counts, n_negative)

    def forward(self, x, contexts):
        # Every (center, context) pair is one example.
        batch, window2 = contexts.shape
        e = self.embed(contexts)
        xx = F.broadcast_to(x[:, None], (batch, window2)).reshape(batch * window2)
        loss = self.loss_func(F.reshape(e, (batch * window2, -1)), xx)
        kusari.report({"loss": loss}, self)
        return loss


class WindowIterator(kusari.dataset.Iterator):
    """Batches of (center word, surrounding window) positions, shuffled per epoch."""

    def __init__(
        self, dataset, window: int, batch_size: int, repeat: bool = True, seed: int = 0
    ) -> None:
        self.dataset = np.asarray(dataset, np.int32)
        self.window = window
        self.batch_size = batch_size
        self.repeat = repeat
        self.rng = np.random.default_rng(seed)
        self.order = self.rng.permutation(len(dataset) - 2 * window) + window
        self.current_position = 0
        self.epoch = 0
        self.is_new_epoch = False

    def __next__(self):
        if not self.repeat and self.epoch > 0:
            raise StopIteration
        i, i_end = self.current_position, self.current_position + self.batch_size
        position = self.order[i:i_end]
        offsets = np.concatenate(
            [np.arange(-self.window, 0), np.arange(1, self.window + 1)]
        )
        contexts = self.dataset[position[:, None] + offsets[None]]
        center = self.dataset[position]
        if i_end >= len(self.order):
            self.rng.shuffle(self.order)
            self.epoch += 1
            self.is_new_epoch = True
            self.current_position = 0
        else:
            self.is_new_epoch = False
            self.current_position = i_end
        return center, contexts

    @property
    def epoch_detail(self) -> float:
        return self.epoch + self.current_position / len(self.order)

    @property
    def previous_epoch_detail(self) -> float:
        return max(self.epoch_detail - self.batch_size / len(self.order), 0.0)

    def serialize(self, serializer) -> None:
        self.current_position = serializer("current_position", self.current_position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        self.order = serializer("order", self.order)


@kusari.dataset.converter()  # receives a Device, not Chainer's int
def convert(batch, device):
    center, contexts = batch
    return device.send(center), device.send(contexts)


def load_data():
    try:
        train, val, _ = kusari.datasets.get_ptb_words()
        vocab = kusari.datasets.get_ptb_words_vocabulary()
        index2word = {i: w for w, i in vocab.items()}
        return train, val, index2word, "Penn Treebank"
    except Exception as e:  # offline
        from _offline import synthetic_corpus

        print(
            f"PTB is not available ({type(e).__name__}: {e}).\n"
            "Training on a GENERATED bigram corpus instead.",
            file=sys.stderr,
        )
        train, val, _, vocab = synthetic_corpus()
        return train, val, {i: w for w, i in vocab.items()}, "generated corpus"


def nearest(model, index2word, word_id: int, k: int = 5) -> list[str]:
    W = kusari.backends.cuda.to_cpu(model.embed.W.array)
    v = W / np.linalg.norm(W, axis=1, keepdims=True).clip(1e-8)
    sims = v @ v[word_id]
    return [index2word[int(i)] for i in np.argsort(-sims)[1 : k + 1]]


def main(argv=None):
    p = _common.parser(__doc__, epoch=10, batchsize=1000)
    p.add_argument("--unit", "-u", type=int, default=100)
    p.add_argument("--window", "-w", type=int, default=5)
    p.add_argument("--negative-size", type=int, default=5)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    train, val, index2word, name = load_data()
    counts = collections.Counter(np.asarray(train).tolist())
    n_vocab = max(index2word) + 1
    cs = [counts[w] for w in range(n_vocab)]
    print(f"Dataset: {name}, vocabulary {n_vocab}, {len(train)} words")
    model = SkipGram(n_vocab, args.unit, cs, args.negative_size)
    model.to_device(device)
    optimizer = kusari.optimizers.Adam()
    optimizer.setup(model)
    train_iter = WindowIterator(train, args.window, args.batchsize)
    updater = training.updaters.StandardUpdater(
        train_iter, optimizer, converter=convert, device=device
    )
    trainer = _common.make_trainer(updater, args)
    _common.add_reporting(trainer, ["main/loss"], progress=not args.max_iterations)
    _common.resume(trainer, args.resume)
    trainer.run()
    for word_id in list(index2word)[:3]:
        print(f"{index2word[word_id]!r}: {nearest(model, index2word, word_id)}")
    _common.report_done(args)
    return model


if __name__ == "__main__":
    main()
