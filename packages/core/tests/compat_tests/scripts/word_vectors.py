"""Chainer-style word embeddings: what the word2vec example relies on.

Skip-gram and CBOW models over ``get_ptb_words()`` with each of the three
output layers (hierarchical softmax from a Huffman tree, negative sampling,
a plain softmax), a context-window iterator with ``serialize``, a
``@chainer.dataset.converter()`` that sends arrays with ``device.send``,
snapshots and a resume, and the vectors written out with the vocabulary.
"""

import argparse
import collections
import os

import chainer
import chainer.functions as F
import chainer.initializers as I
import chainer.links as L
import numpy as np
from chainer import reporter, training
from chainer.backends import cuda
from chainer.training import extensions


class Embedding(chainer.Chain):
    def __init__(self, vocab, units, loss_link, cbow):
        super().__init__()
        self.cbow = cbow
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units, initialW=I.Uniform(1.0 / units))
            self.loss_link = loss_link

    def forward(self, center, context):
        e = self.embed(context)
        if self.cbow:
            loss = self.loss_link(F.mean(e, axis=1), center)
        else:
            batch, width, units = e.shape
            center = F.broadcast_to(center[:, None], (batch, width))
            loss = self.loss_link(
                F.reshape(e, (batch * width, units)),
                F.reshape(center, (batch * width,)),
            )
        reporter.report({"loss": loss}, self)
        return loss


class PlainSoftmax(chainer.Chain):
    def __init__(self, units, vocab):
        super().__init__()
        with self.init_scope():
            self.out = L.Linear(units, vocab, initialW=0)

    def forward(self, h, t):
        return F.softmax_cross_entropy(self.out(h), t)


class Windows(chainer.dataset.Iterator):
    def __init__(self, words, window, batch, repeat=True):
        self.words = np.asarray(words, np.int32)
        self.window = window
        self.batch = batch
        self.repeat = repeat
        self.order = np.random.permutation(len(words) - 2 * window).astype(np.int32)
        self.order += window
        self.position = 0
        self.epoch = 0
        self.is_new_epoch = False

    def __next__(self):
        if not self.repeat and self.epoch > 0:
            raise StopIteration
        picked = self.order[self.position : self.position + self.batch]
        span = np.random.randint(1, self.window)
        offsets = np.concatenate([np.arange(-span, 0), np.arange(1, span + 1)])
        context = self.words.take(picked[:, None] + offsets[None, :])
        center = self.words.take(picked)
        self.position += self.batch
        self.is_new_epoch = self.position >= len(self.order)
        if self.is_new_epoch:
            self.epoch += 1
            self.position = 0
            np.random.shuffle(self.order)
        return center, context

    @property
    def epoch_detail(self):
        return self.epoch + self.position / len(self.order)

    def serialize(self, serializer):
        self.position = serializer("current_position", self.position)
        self.epoch = serializer("epoch", self.epoch)
        self.is_new_epoch = serializer("is_new_epoch", self.is_new_epoch)
        serializer("order", self.order)


@chainer.dataset.converter()
def to_device(batch, device):
    center, context = batch
    return device.send(center), device.send(context)


def output_layer(kind, units, counts, vocab):
    if kind == "hsm":
        tree = L.BinaryHierarchicalSoftmax.create_huffman_tree(counts)
        link = L.BinaryHierarchicalSoftmax(units, tree)
        link.W.array[...] = 0
        return link
    if kind == "ns":
        link = L.NegativeSampling(units, [counts[w] for w in range(vocab)], 3)
        link.W.array[...] = 0
        return link
    return PlainSoftmax(units, vocab)


def train(args, device, kind, cbow, out, resume=None):
    words, valid, _ = chainer.datasets.get_ptb_words()
    counts = collections.Counter(words)
    counts.update(collections.Counter(valid))
    vocab = max(words) + 1
    model = Embedding(
        vocab, args.unit, output_layer(kind, args.unit, counts, vocab), cbow
    )
    model.to_device(device)
    optimizer = chainer.optimizers.Adam()
    optimizer.setup(model)
    updater = training.updaters.StandardUpdater(
        Windows(words[:400], 3, args.batchsize),
        optimizer,
        converter=to_device,
        device=device,
    )
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=out)
    trainer.extend(
        extensions.Evaluator(
            Windows(valid[:100], 3, args.batchsize, repeat=False),
            model,
            converter=to_device,
            device=device,
        )
    )
    trainer.extend(extensions.LogReport())
    trainer.extend(
        extensions.snapshot(filename="snapshot_epoch_{.updater.epoch}"),
        trigger=(1, "epoch"),
    )
    if resume is not None:
        chainer.serializers.load_npz(resume, trainer)
    trainer.run()
    return model, trainer


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", "-d", type=str, default="-1")
    parser.add_argument("--unit", "-u", type=int, default=8)
    parser.add_argument("--batchsize", "-b", type=int, default=50)
    parser.add_argument("--epoch", "-e", type=int, default=1)
    parser.add_argument("--out", default="result")
    group = parser.add_argument_group("deprecated arguments")
    group.add_argument("--gpu", "-g", dest="device", type=int, nargs="?", const=0)
    args = parser.parse_args()
    device = chainer.get_device(args.device)
    device.use()

    for kind, cbow in (("hsm", False), ("ns", True), ("original", False)):
        out = os.path.join(args.out, kind)
        model, trainer = train(args, device, kind, cbow, out)
        assert np.isfinite(trainer.observation["main/loss"].array)
    args.epoch += 1
    model, trainer = train(
        args,
        device,
        "hsm",
        False,
        os.path.join(args.out, "hsm"),
        resume=os.path.join(args.out, "hsm", "snapshot_epoch_1"),
    )
    assert trainer.updater.epoch == 2

    vocabulary = chainer.datasets.get_ptb_words_vocabulary()
    names = {i: w for w, i in vocabulary.items()}
    vectors = cuda.to_cpu(model.embed.W.array)
    with open(os.path.join(args.out, "vectors.txt"), "w") as f:
        f.write("{} {}\n".format(*vectors.shape))
        for i, row in enumerate(vectors):
            f.write("{} {}\n".format(names[i], " ".join(map(str, row))))
    print("OK word_vectors")


if __name__ == "__main__":
    main()
