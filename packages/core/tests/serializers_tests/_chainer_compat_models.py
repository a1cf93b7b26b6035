"""Model definitions shared by the Chainer fixture generator and its test.

Every spec is written against a framework module ``ch`` that is either the
real ``chainer`` (in ``tools/make_chainer_fixtures.py``, run under Chainer
7.8.1) or ``kusari`` (in ``test_chainer_compat.py``). The same constructor
arguments and the same forward code run on both, so the test checks that
kusari has Chainer's API, parameter names, shapes and numerics.

This file must stay importable by Python 3.8 without kusari (the generator
runs there), so it has no annotations and no kusari import.

A spec has:

* ``build(ch)``: the model;
* ``inputs(rng)``: a dict of NumPy arrays (a list of sequences is stored as
  ``name_0``, ``name_1``, ...; read it back with :func:`seq`);
* ``run(ch, model, inp)``: a dict of output arrays, computed in test mode;
* optionally ``prepare(ch, model, rng)``: run by the generator only, after
  the parameters are perturbed (train-mode forwards that move the running
  averages of the normalization links away from their initial values);
* optionally ``warmup(ch, model, inp)``: run by the generator only, before
  the perturbation, to initialize lazy parameters (``lazy`` is then true:
  kusari's model has those parameters uninitialized until it loads).
"""

import numpy

FLOAT = numpy.float32


def _arr(v):
    """The NumPy array of a Variable or an array."""
    return numpy.asarray(getattr(v, "array", v))


def seq(inp, name):
    """The list ``inp[name + '_0'], inp[name + '_1'], ...``."""
    out = []
    while f"{name}_{len(out)}" in inp:
        out.append(inp[f"{name}_{len(out)}"])
    return out


def put_seq(d, name, arrays):
    for i, a in enumerate(arrays):
        d[f"{name}_{i}"] = a


def _normal(rng, *shape):
    return rng.standard_normal(shape).astype(FLOAT)


class Spec:
    def __init__(self, name, build, inputs, run, prepare=None, warmup=None):
        self.name = name
        self.build = build
        self.inputs = inputs
        self.run = run
        self.prepare = prepare
        self.warmup = warmup
        self.lazy = warmup is not None


SPECS = []


def _run_x(ch, model, inp):
    return {"y": _arr(model(inp["x"]))}


def spec(name, build, inputs, run=None, prepare=None, warmup=None):
    SPECS.append(Spec(name, build, inputs, run or _run_x, prepare, warmup))


def _x(*shape):
    return lambda rng: {"x": _normal(rng, *shape)}


def _bn_prepare(*shape):
    def prepare(ch, model, rng):
        with ch.using_config("train", True):
            for _ in range(3):
                model(_normal(rng, *shape) * 2.0 + 0.5)

    return prepare


# -- connection ------------------------------------------------------------

spec("linear", lambda ch: ch.links.Linear(5, 3), _x(4, 5))
spec("linear_nobias", lambda ch: ch.links.Linear(5, 3, nobias=True), _x(4, 5))
spec("linear_nd_input", lambda ch: ch.links.Linear(12, 3), _x(2, 3, 2, 2))
spec(
    "conv2d",
    lambda ch: ch.links.Convolution2D(
        4, 6, ksize=3, stride=1, pad=2, dilate=2, groups=2
    ),
    _x(2, 4, 7, 7),
)
spec(
    "conv2d_stride",
    lambda ch: ch.links.Convolution2D(3, 5, ksize=(3, 2), stride=(2, 1), pad=(1, 0)),
    _x(2, 3, 7, 6),
)
spec(
    "deconv2d",
    lambda ch: ch.links.Deconvolution2D(4, 3, ksize=3, stride=2, pad=1),
    _x(2, 4, 5, 5),
)
spec(
    "deconv2d_groups",
    lambda ch: ch.links.Deconvolution2D(
        4, 6, ksize=3, stride=2, pad=1, dilate=2, groups=2, outsize=(10, 10)
    ),
    _x(2, 4, 5, 5),
)
spec(
    "conv1d",
    lambda ch: ch.links.Convolution1D(3, 4, ksize=3, stride=2, pad=1),
    _x(2, 3, 9),
)
spec(
    "conv3d",
    lambda ch: ch.links.ConvolutionND(3, 2, 3, ksize=2, stride=1, pad=1, groups=1),
    _x(1, 2, 3, 4, 3),
)
spec(
    "deconv1d",
    lambda ch: ch.links.DeconvolutionND(1, 4, 2, ksize=3, stride=2, pad=0, groups=2),
    _x(2, 4, 5),
)
spec(
    "dilated_conv2d",
    lambda ch: ch.links.DilatedConvolution2D(2, 3, ksize=3, pad=2, dilate=2),
    _x(1, 2, 6, 6),
)
spec(
    "depthwise_conv2d",
    lambda ch: ch.links.DepthwiseConvolution2D(3, 2, ksize=3, stride=1, pad=1),
    _x(2, 3, 5, 5),
)
spec(
    "local_conv2d",
    lambda ch: ch.links.LocalConvolution2D(2, 3, in_size=(5, 5), ksize=3, stride=1),
    _x(2, 2, 5, 5),
)
spec(
    "deformable_conv2d",
    lambda ch: ch.links.DeformableConvolution2D(2, 3, ksize=3, pad=1),
    _x(1, 2, 5, 5),
)
spec(
    "mlp_conv2d",
    lambda ch: ch.links.MLPConvolution2D(3, (4, 5, 2), ksize=3, pad=1),
    _x(2, 3, 5, 5),
)
spec(
    "inception",
    lambda ch: ch.links.Inception(3, 2, 2, 3, 2, 2, 2),
    _x(1, 3, 6, 6),
)
spec(
    "inception_bn",
    lambda ch: ch.links.InceptionBN(4, 2, 2, 3, 2, 3, "avg", proj_pool=2),
    _x(2, 4, 6, 6),
    prepare=_bn_prepare(4, 4, 6, 6),
)
spec(
    "embed_id",
    lambda ch: ch.links.EmbedID(10, 4, ignore_label=-1),
    lambda rng: {"x": numpy.array([[1, 3, -1], [9, 0, 3]], dtype=numpy.int32)},
)
spec("highway", lambda ch: ch.links.Highway(5), _x(3, 5))
spec(
    "scale",
    lambda ch: ch.links.Scale(axis=1, W_shape=(3,), bias_term=True),
    _x(2, 3, 4),
)
spec("bias", lambda ch: ch.links.Bias(axis=1, shape=(3,)), _x(2, 3, 4))
spec(
    "bilinear",
    lambda ch: ch.links.Bilinear(3, 4, 2),
    lambda rng: {"e1": _normal(rng, 5, 3), "e2": _normal(rng, 5, 4)},
    lambda ch, model, inp: {"y": _arr(model(inp["e1"], inp["e2"]))},
)

# -- activation links ------------------------------------------------------

spec("maxout", lambda ch: ch.links.Maxout(4, 3, 2), _x(5, 4))
spec("prelu", lambda ch: ch.links.PReLU(shape=(3,)), _x(2, 3, 4))
spec("swish", lambda ch: ch.links.Swish((3,)), _x(2, 3))
spec(
    "simplified_dropconnect",
    lambda ch: ch.links.SimplifiedDropconnect(4, 3, ratio=0.5),
    _x(2, 4),
    lambda ch, model, inp: {"y": _arr(model(inp["x"], train=False))},
)

# -- normalization ---------------------------------------------------------

spec(
    "batch_norm",
    lambda ch: ch.links.BatchNormalization(5),
    _x(6, 5),
    prepare=_bn_prepare(8, 5),
)
spec(
    "batch_norm_4d",
    lambda ch: ch.links.BatchNormalization(3, decay=0.8, eps=1e-3),
    _x(2, 3, 4, 4),
    prepare=_bn_prepare(4, 3, 4, 4),
)
spec(
    "batch_norm_no_gamma",
    lambda ch: ch.links.BatchNormalization(3, use_gamma=False),
    _x(4, 3),
    prepare=_bn_prepare(4, 3),
)
spec(
    "batch_renorm",
    lambda ch: ch.links.BatchRenormalization(3, rmax=2.0, dmax=1.0),
    _x(4, 3),
    prepare=_bn_prepare(6, 3),
)
spec(
    "decorrelated_bn",
    lambda ch: ch.links.DecorrelatedBatchNormalization(4, groups=2),
    _x(6, 4),
    prepare=_bn_prepare(16, 4),
)
spec("layer_norm", lambda ch: ch.links.LayerNormalization(6), _x(4, 6))
spec("group_norm", lambda ch: ch.links.GroupNormalization(2, 4), _x(2, 4, 3, 3))

# -- RNNs ------------------------------------------------------------------


def _steps_inputs(rng, sizes=(3, 3, 2), in_size=3):
    d = {}
    put_seq(d, "xs", [_normal(rng, b, in_size) for b in sizes])
    return d


def _run_stateful(ch, model, inp):
    out = {}
    for t, x in enumerate(seq(inp, "xs")):
        out[f"y{t}"] = _arr(model(x))
    out["h"] = _arr(model.h)
    if hasattr(model, "c"):
        out["c"] = _arr(model.c)
    return out


spec("lstm", lambda ch: ch.links.LSTM(3, 4), _steps_inputs, _run_stateful)


def _run_stateless_lstm(ch, model, inp):
    xs = seq(inp, "xs")
    c, h = model(None, None, xs[0])
    c, h = model(c, h, xs[1])
    return {"c": _arr(c), "h": _arr(h)}


spec(
    "stateless_lstm",
    lambda ch: ch.links.StatelessLSTM(3, 4),
    lambda rng: _steps_inputs(rng, (2, 2)),
    _run_stateless_lstm,
)
spec(
    "stateful_gru",
    lambda ch: ch.links.StatefulGRU(3, 4),
    lambda rng: _steps_inputs(rng, (2, 2, 2)),
    _run_stateful,
)
spec(
    "gru",
    lambda ch: ch.links.GRU(3, 4),
    lambda rng: _steps_inputs(rng, (2, 2, 2)),
    _run_stateful,
)
spec(
    "stateless_gru",
    lambda ch: ch.links.StatelessGRU(3, 4),
    lambda rng: {"h": _normal(rng, 2, 4), "x": _normal(rng, 2, 3)},
    lambda ch, model, inp: {"y": _arr(model(inp["h"], inp["x"]))},
)
spec(
    "peephole_lstm",
    lambda ch: ch.links.StatefulPeepholeLSTM(3, 4),
    lambda rng: _steps_inputs(rng, (2, 2, 2)),
    _run_stateful,
)
spec(
    "zoneout_lstm",
    lambda ch: ch.links.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.6),
    lambda rng: _steps_inputs(rng, (2, 2, 2)),
    _run_stateful,
)
spec(
    "stateful_mgu",
    lambda ch: ch.links.StatefulMGU(3, 4),
    lambda rng: _steps_inputs(rng, (2, 2, 2)),
    _run_stateful,
)
spec(
    "stateless_mgu",
    lambda ch: ch.links.StatelessMGU(3, 4),
    lambda rng: {"h": _normal(rng, 2, 4), "x": _normal(rng, 2, 3)},
    lambda ch, model, inp: {"y": _arr(model(inp["h"], inp["x"]))},
)


def _run_child_sum(ch, model, inp):
    c, h = model(inp["c1"], inp["c2"], inp["h1"], inp["h2"], inp["x"])
    return {"c": _arr(c), "h": _arr(h)}


def _tree_inputs(rng):
    return {
        k: _normal(rng, 2, 3 if k == "x" else 4) for k in ("c1", "c2", "h1", "h2", "x")
    }


spec(
    "child_sum_tree_lstm",
    lambda ch: ch.links.ChildSumTreeLSTM(3, 4),
    _tree_inputs,
    _run_child_sum,
)
spec(
    "nary_tree_lstm",
    lambda ch: ch.links.NaryTreeLSTM(3, 4, n_ary=2),
    _tree_inputs,
    _run_child_sum,
)


def _seq_inputs(rng, lengths=(4, 2, 5), in_size=3, hx=None):
    d = {}
    put_seq(d, "xs", [_normal(rng, n, in_size) for n in lengths])
    if hx is not None:
        d["hx"] = _normal(rng, *hx)
        d["cx"] = _normal(rng, *hx)
    return d


def _run_nstep(ch, model, inp):
    hx = inp.get("hx")
    out = {}
    if type(model).__name__ in ("NStepLSTM", "NStepBiLSTM"):
        hy, cy, ys = model(hx, inp.get("cx"), seq(inp, "xs"))
        out["cy"] = _arr(cy)
    else:
        hy, ys = model(hx, seq(inp, "xs"))
    out["hy"] = _arr(hy)
    put_seq(out, "ys", [_arr(y) for y in ys])
    return out


spec("nstep_lstm", lambda ch: ch.links.NStepLSTM(2, 3, 4, 0.0), _seq_inputs, _run_nstep)
spec(
    "nstep_lstm_hx",
    lambda ch: ch.links.NStepLSTM(2, 3, 4, 0.0),
    lambda rng: _seq_inputs(rng, hx=(2, 3, 4)),
    _run_nstep,
)
spec(
    "nstep_bilstm",
    lambda ch: ch.links.NStepBiLSTM(2, 3, 4, 0.0),
    _seq_inputs,
    _run_nstep,
)
spec(
    "nstep_bigru", lambda ch: ch.links.NStepBiGRU(2, 3, 4, 0.0), _seq_inputs, _run_nstep
)
spec(
    "nstep_gru_hx",
    lambda ch: ch.links.NStepGRU(1, 3, 4, 0.0),
    lambda rng: _seq_inputs(rng, hx=(1, 3, 4)),
    _run_nstep,
)
spec(
    "nstep_rnn_tanh",
    lambda ch: ch.links.NStepRNNTanh(2, 3, 4, 0.0),
    _seq_inputs,
    _run_nstep,
)
spec(
    "nstep_birnn_relu",
    lambda ch: ch.links.NStepBiRNNReLU(1, 3, 4, 0.0),
    _seq_inputs,
    _run_nstep,
)

# -- losses ----------------------------------------------------------------


def _crf_inputs(rng):
    # Time-major, batch sizes non-increasing (lengths 3, 2).
    d = {}
    put_seq(d, "xs", [_normal(rng, 2, 3), _normal(rng, 2, 3), _normal(rng, 1, 3)])
    put_seq(d, "ys", [numpy.array(v, numpy.int32) for v in ([0, 2], [1, 1], [2])])
    return d


def _run_crf(ch, model, inp):
    xs, ys = seq(inp, "xs"), seq(inp, "ys")
    loss = model(xs, ys)
    score, path = model.argmax(xs)
    out = {"loss": _arr(loss), "score": _arr(score)}
    put_seq(out, "path", [numpy.asarray(p) for p in path])
    return out


spec("crf1d", lambda ch: ch.links.CRF1d(3), _crf_inputs, _run_crf)


def _hsm_build(ch):
    tree = ch.links.BinaryHierarchicalSoftmax.create_huffman_tree(
        {0: 5, 1: 3, 2: 2, 3: 1}
    )
    return ch.links.BinaryHierarchicalSoftmax(3, tree)


spec(
    "hierarchical_softmax",
    _hsm_build,
    lambda rng: {"x": _normal(rng, 4, 3), "t": numpy.array([0, 1, 2, 3], numpy.int32)},
    lambda ch, model, inp: {"loss": _arr(model(inp["x"], inp["t"]))},
)

# -- containers and names --------------------------------------------------


def _nested_build(ch):
    L = ch.links

    class Predictor(ch.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(4, 5)
                self.blocks = ch.ChainList(L.Linear(5, 5), L.Linear(5, 5, nobias=True))
                self.bn = L.BatchNormalization(5)

        def forward(self, x):
            h = ch.functions.relu(self.l1(x))
            for block in self.blocks:
                h = ch.functions.tanh(block(h))
            return self.bn(h)

    class Model(ch.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.predictor = Predictor()
                self.head = L.Linear(5, 2)

        def forward(self, x):
            return self.head(self.predictor(x))

    return Model()


spec("nested_chain", _nested_build, _x(3, 4), prepare=_bn_prepare(6, 4))


def _sequential_build(ch):
    L, F = ch.links, ch.functions
    return ch.Sequential(
        L.Convolution2D(1, 4, 3, pad=1),
        F.relu,
        L.Convolution2D(4, 4, 3, stride=2),
        L.BatchNormalization(4),
        F.relu,
        lambda h: F.max_pooling_2d(h, 2),
        L.Linear(16, 5),
    )


spec(
    "sequential_cnn",
    _sequential_build,
    _x(2, 1, 10, 10),
    prepare=_bn_prepare(4, 1, 10, 10),
)


def _sequential_linear_build(ch):
    L, F = ch.links, ch.functions
    return ch.Sequential(
        L.Linear(3, 4), L.Linear(4, 5), F.relu, L.Linear(5, 6), L.Linear(6, 2)
    )


spec("sequential_linears", _sequential_linear_build, _x(2, 3))


def _lazy_build(ch):
    L, F = ch.links, ch.functions
    return ch.Sequential(
        L.Convolution2D(None, 3, 3),
        L.BatchNormalization(axis=(0, 2, 3)),
        F.relu,
        L.Linear(None, 4),
    )


def _warmup_x(ch, model, inp):
    with ch.using_config("train", False):
        model(inp["x"])


spec(
    "lazy_sequential",
    _lazy_build,
    _x(2, 2, 5, 5),
    prepare=_bn_prepare(4, 2, 5, 5),
    warmup=_warmup_x,
)


def _lazy_chain_build(ch):
    L, F = ch.links, ch.functions

    class Model(ch.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.deconv = L.Deconvolution2D(None, 4, 3, stride=2)
                self.gn = L.GroupNormalization(2)
                self.dw = L.DepthwiseConvolution2D(4, 2, 3)
                self.fc = L.Linear(None, 6)
                self.ln = L.LayerNormalization()
                self.bias = L.Bias(shape=(6,))

        def forward(self, x):
            h = self.dw(F.relu(self.gn(self.deconv(x))))
            return self.bias(self.ln(self.fc(h)))

    return Model()


spec("lazy_chain", _lazy_chain_build, _x(2, 3, 3, 3), warmup=_warmup_x)


def _warmup_lstm(ch, model, inp):
    model(seq(inp, "xs")[0])
    model.reset_state()


spec(
    "lazy_lstm",
    lambda ch: ch.links.LSTM(4),
    _steps_inputs,
    _run_stateful,
    warmup=_warmup_lstm,
)


def _mlp(ch, n_in, n_hidden, n_out):
    L, F = ch.links, ch.functions

    class MLP(ch.Chain):
        def __init__(self):
            super().__init__()
            with self.init_scope():
                self.l1 = L.Linear(n_in, n_hidden)
                self.l2 = L.Linear(n_hidden, n_out)

        def forward(self, x):
            return self.l2(F.relu(self.l1(x)))

    return MLP()


def _run_classifier(ch, model, inp):
    loss = model(inp["x"], inp["t"])
    return {
        "loss": _arr(loss),
        "accuracy": _arr(model.accuracy),
        "y": _arr(model.y),
    }


spec(
    "classifier",
    lambda ch: ch.links.Classifier(_mlp(ch, 4, 6, 3)),
    lambda rng: {
        "x": _normal(rng, 5, 4),
        "t": numpy.array([0, 2, 1, 1, 0], numpy.int32),
    },
    _run_classifier,
)


def _resnet_block_build(ch, **kwargs):
    from importlib import import_module

    resnet = import_module(ch.__name__ + ".links.model.vision.resnet")
    return resnet.BuildingBlock(2, 3, 2, 4, 2, **kwargs)


spec(
    "resnet_building_block",
    _resnet_block_build,
    _x(2, 3, 6, 6),
    prepare=_bn_prepare(4, 3, 6, 6),
)
spec(
    "resnet_building_block_fb",
    lambda ch: _resnet_block_build(ch, downsample_fb=True),
    _x(2, 3, 6, 6),
    prepare=_bn_prepare(4, 3, 6, 6),
)

SPEC_BY_NAME = {s.name: s for s in SPECS}

# -- vision zoo: names and shapes only -------------------------------------

ZOO = {
    "ResNet50Layers": lambda ch: ch.links.ResNet50Layers(pretrained_model=None),
    "VGG16Layers": lambda ch: ch.links.VGG16Layers(pretrained_model=None),
    "GoogLeNet": lambda ch: ch.links.GoogLeNet(pretrained_model=None),
}

# -- optimizers ------------------------------------------------------------

OPTIMIZERS = {
    "adam": lambda ch: ch.optimizers.Adam(alpha=0.01),
    "adam_amsgrad": lambda ch: ch.optimizers.Adam(alpha=0.01, amsgrad=True),
    "adamw": lambda ch: ch.optimizers.AdamW(alpha=0.01, weight_decay_rate=0.1),
    "momentum_sgd": lambda ch: ch.optimizers.MomentumSGD(lr=0.1, momentum=0.9),
    "sgd": lambda ch: ch.optimizers.SGD(lr=0.1),
    "adagrad": lambda ch: ch.optimizers.AdaGrad(lr=0.05),
    "adadelta": lambda ch: ch.optimizers.AdaDelta(),
    "rmsprop": lambda ch: ch.optimizers.RMSprop(lr=0.01),
    "rmsprop_graves": lambda ch: ch.optimizers.RMSpropGraves(),
    "nesterov_ag": lambda ch: ch.optimizers.NesterovAG(lr=0.05),
    "corrected_momentum_sgd": lambda ch: ch.optimizers.CorrectedMomentumSGD(lr=0.05),
    "smorms3": lambda ch: ch.optimizers.SMORMS3(lr=0.01),
    "msvag": lambda ch: ch.optimizers.MSVAG(lr=0.05),
}


def optimizer_model(ch):
    return _mlp(ch, 4, 5, 3)


def optimizer_batch(rng):
    return _normal(rng, 6, 4), rng.randint(0, 3, size=6).astype(numpy.int32)


def optimizer_step(ch, model, optimizer, x, t):
    """One update on ``softmax_cross_entropy(model(x), t)``."""
    model.cleargrads()
    loss = ch.functions.softmax_cross_entropy(model(x), t)
    loss.backward()
    optimizer.update()
