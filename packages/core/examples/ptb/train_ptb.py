#!/usr/bin/env python
"""Word-level LSTM language model on Penn Treebank, truncated BPTT.

Two stacked LSTMs over word embeddings, trained on windows of `--bproplen`
steps: the loss is accumulated over the window, backpropagated, and the
history is cut with `unchain_backward` so memory stays bounded.

    python train_ptb.py --epoch 39 --unit 650

Offline, a generated corpus from a random bigram model stands in for PTB.
"""

from __future__ import annotations

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import _common
import numpy as np

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import training
from kusari.training import extensions


class RNNLM(kusari.Chain):
    def __init__(self, n_vocab: int, n_units: int, dropout: float = 0.5) -> None:
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(n_vocab, n_units)
            self.l1 = L.LSTM(n_units, n_units)
            self.l2 = L.LSTM(n_units, n_units)
            self.l3 = L.Linear(n_units, n_vocab)
        self.dropout = dropout
        for param in self.params():
            param.array[...] = np.random.uniform(-0.1, 0.1, param.shape)

    def reset_state(self) -> None:
        self.l1.reset_state()
        self.l2.reset_state()

    def forward(self, x):
        h0 = self.embed(x)
        h1 = self.l1(F.dropout(h0, self.dropout))
        h2 = self.l2(F.dropout(h1, self.dropout))
        return self.l3(F.dropout(h2, self.dropout))


class ParallelSequentialIterator(kusari.dataset.Iterator):
    """`batch_size` cursors spread over the corpus, each yielding (word, next)."""

    def __init__(self, dataset, batch_size: int, repeat: bool = True) -> None:
        self.dataset = dataset
        self.batch_size = batch_size
        self.repeat = repeat
        self.offsets = [i * len(dataset) // batch_size for i in range(batch_size)]
        self.iteration = 0
        self.epoch = 0
        self.is_new_epoch = False

    def __next__(self):
        length = len(self.dataset)
        if not self.repeat and self.iteration * self.batch_size >= length:
            raise StopIteration
        cur = [self.dataset[(o + self.iteration) % length] for o in self.offsets]
        nxt = [self.dataset[(o + self.iteration + 1) % length] for o in self.offsets]
        self.iteration += 1
        epoch = self.iteration * self.batch_size // length
        self.is_new_epoch = self.epoch < epoch
        self.epoch = epoch
        return list(zip(cur, nxt))

    @property
    def epoch_detail(self) -> float:
        return self.iteration * self.batch_size / len(self.dataset)

    @property
    def previous_epoch_detail(self) -> float:
        return (self.iteration - 1) * self.batch_size / len(self.dataset)

    def reset(self) -> None:
        self.iteration = 0
        self.epoch = 0
        self.is_new_epoch = False

    def serialize(self, serializer) -> None:
        self.iteration = serializer("iteration", self.iteration)
        self.epoch = serializer("epoch", self.epoch)


class BPTTUpdater(training.updaters.StandardUpdater):
    """Accumulates the loss over `bprop_len` steps, then one update."""

    def __init__(self, train_iter, optimizer, bprop_len: int, device) -> None:
        super().__init__(train_iter, optimizer, device=device)
        self.bprop_len = bprop_len

    def update_core(self) -> None:
        loss = 0
        it = self.get_iterator("main")
        optimizer = self.get_optimizer("main")
        for _ in range(self.bprop_len):
            batch = it.__next__()
            x, t = self.converter(batch, self.device)
            loss += optimizer.target(x, t)
        optimizer.target.cleargrads()
        loss.backward()
        loss.unchain_backward()  # truncate the history
        optimizer.update()


def compute_perplexity(result: dict) -> None:
    result["perplexity"] = math.exp(result["main/loss"])
    if "validation/main/loss" in result:
        result["val_perplexity"] = math.exp(result["validation/main/loss"])


def load_data():
    try:
        train, val, test = kusari.datasets.get_ptb_words()
        n_vocab = max(train) + 1
        return (train, val, test), n_vocab, "Penn Treebank"
    except Exception as e:  # offline
        from _offline import synthetic_corpus

        print(
            f"PTB is not available ({type(e).__name__}: {e}).\n"
            "Training on a GENERATED bigram corpus instead.",
            file=sys.stderr,
        )
        train, val, test, vocab = synthetic_corpus()
        return (train, val, test), len(vocab), "generated corpus"


def main(argv=None) -> float:
    p = _common.parser(__doc__, epoch=39, batchsize=20)
    p.add_argument("--bproplen", "-l", type=int, default=35)
    p.add_argument("--gradclip", "-c", type=float, default=5.0)
    p.add_argument("--unit", "-u", type=int, default=650)
    args = p.parse_args(argv)
    device = _common.device_of(args.device)

    (train, val, test), n_vocab, name = load_data()
    print(f"Dataset: {name}, vocabulary {n_vocab}, {len(train)} training words")
    rnn = RNNLM(n_vocab, args.unit)
    model = L.Classifier(rnn)
    model.compute_accuracy = False
    model.to_device(device)
    optimizer = kusari.optimizers.SGD(lr=1.0)
    optimizer.setup(model)
    optimizer.add_hook(kusari.optimizer_hooks.GradientClipping(args.gradclip))

    train_iter = ParallelSequentialIterator(train, args.batchsize)
    val_iter = ParallelSequentialIterator(val, 1, repeat=False)
    updater = BPTTUpdater(train_iter, optimizer, args.bproplen, device)
    trainer = _common.make_trainer(updater, args)
    eval_model = model.copy()
    eval_rnn = eval_model.predictor
    trainer.extend(
        extensions.Evaluator(
            val_iter,
            eval_model,
            device=device,
            eval_hook=lambda _: eval_rnn.reset_state(),
        )
    )
    interval = (10, "iteration") if args.max_iterations else (500, "iteration")
    trainer.extend(
        extensions.LogReport(postprocess=compute_perplexity, trigger=interval)
    )
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "iteration", "perplexity", "val_perplexity", "elapsed_time"]
        ),
        trigger=interval,
    )
    trainer.extend(extensions.snapshot(n_retains=1), trigger=(1, "epoch"))
    _common.resume(trainer, args.resume)
    trainer.run()

    # Test perplexity, state reset and dropout off.
    eval_rnn.reset_state()
    total, count = 0.0, 0
    with kusari.using_config("train", False), kusari.no_backprop_mode():
        limit = len(test) - 1 if not args.max_iterations else min(200, len(test) - 1)
        for i in range(limit):
            x = device.send(np.asarray([test[i]], np.int32))
            t = device.send(np.asarray([test[i + 1]], np.int32))
            total += float(eval_model(x, t).array)
            count += 1
    perplexity = math.exp(total / max(count, 1))
    print(f"test perplexity: {perplexity:.2f}")
    _common.report_done(args)
    return perplexity


if __name__ == "__main__":
    main()
