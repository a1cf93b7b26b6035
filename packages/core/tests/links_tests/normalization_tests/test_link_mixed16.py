"""Normalization links under ``config.dtype = kusari.mixed16``, and a small
end-to-end training run in mixed precision.

Chainer 7 creates float16 parameters under ``mixed16`` except in batch
normalization (and its renormalization subclass) and group normalization,
which keep ``gamma``, ``beta`` and the running statistics in float32; their
functions take the float16 input with the float32 parameters and return
float16.
"""

import numpy as np
import pytest

import kusari
import kusari.functions as F
import kusari.links as L
from kusari import gradient_check

F16, F32 = np.dtype(np.float16), np.dtype(np.float32)


def _x(shape, seed=0, dtype=np.float16):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _param_dtypes(link):
    return {name: p.dtype for name, p in link.namedparams()}


# name, constructor, input shape, parameter dtypes under mixed16
LINKS = [
    ("bn", lambda: L.BatchNormalization(3), (4, 3), F32),
    ("bn_lazy", lambda: L.BatchNormalization(axis=(0, 2)), (4, 3, 2), F32),
    ("brn", lambda: L.BatchRenormalization(3), (4, 3), F32),
    ("gn", lambda: L.GroupNormalization(1, 3), (4, 3, 2), F32),
    ("ln", lambda: L.LayerNormalization(3), (4, 3), F16),
]


@pytest.mark.parametrize("name,make,shape,pdtype", LINKS)
def test_parameter_dtypes_under_mixed16(name, make, shape, pdtype):
    with kusari.using_config("dtype", kusari.mixed16):
        link = make()
    link(_x(shape))  # initializes the lazy ones
    assert set(_param_dtypes(link).values()) == {pdtype}
    for stat in ("avg_mean", "avg_var"):
        if hasattr(link, stat):
            assert getattr(link, stat).dtype == pdtype


def test_batch_normalization_without_gamma_and_beta_under_mixed16():
    with kusari.using_config("dtype", kusari.mixed16):
        bn = L.BatchNormalization(3, use_gamma=False, use_beta=False)
    assert bn.avg_mean.dtype == F32
    assert bn(_x((4, 3))).dtype == F16


def test_explicit_mixed16_argument_and_plain_float16():
    assert L.BatchNormalization(3, dtype=kusari.mixed16).gamma.dtype == F32
    # float16 asked for directly is float16 everywhere, as in Chainer.
    assert L.BatchNormalization(3, dtype=np.float16).gamma.dtype == F16
    with kusari.using_config("dtype", np.float16):
        assert L.GroupNormalization(1, 3).gamma.dtype == F16


def test_decorrelated_batch_normalization_statistics_stay_float32():
    with kusari.using_config("dtype", kusari.mixed16):
        dbn = L.DecorrelatedBatchNormalization(4, groups=2)
    assert dbn.avg_mean.dtype == dbn.avg_projection.dtype == F32


# Batch renormalization in test mode is fixed_batch_normalization, which the
# BatchNormalization rows cover; it is left out rather than run twice.
@pytest.mark.parametrize(
    "name,make,shape,pdtype,train",
    [
        (*link, train)
        for link in LINKS
        for train in (True, False)
        if train or link[0] != "brn"
    ],
)
def test_float16_input_gradients_in_own_dtypes(name, make, shape, pdtype, train):
    with kusari.using_config("dtype", kusari.mixed16):
        link = make()
    link(_x(shape, seed=1))
    x = kusari.Variable(_x(shape, seed=2))
    with kusari.using_config("train", train):
        y = link(x)
    assert y.dtype == F16
    y.grad = _x(shape, seed=3)
    link.cleargrads()
    y.backward()
    assert x.grad.dtype == F16
    assert {p.grad.dtype for p in link.params()} == {pdtype}
    assert all(np.isfinite(p.grad).all() for p in link.params())


@pytest.mark.parametrize("train", [True, False])
def test_batch_normalization_link_gradient_check_mixed16(train):
    with kusari.using_config("dtype", kusari.mixed16):
        bn = L.BatchNormalization(3)
    rng = np.random.default_rng(4)
    bn.gamma.array[...] = rng.uniform(0.5, 1.5, 3)
    bn.beta.array[...] = rng.uniform(-1, 1, 3)
    bn.avg_var[...] = rng.uniform(0.5, 1.5, 3)
    x = rng.uniform(-1, 1, (6, 3)).astype(np.float16)
    gy = rng.uniform(-1, 1, (6, 3)).astype(np.float16)
    # In test mode the float32 running statistics take part, so the numerical
    # side runs in the link's own dtypes rather than all in float64.
    dtype, tol = (np.float64, 5e-2) if train else (None, 1e-1)
    with kusari.using_config("train", train):
        gradient_check.check_backward(
            bn,
            x,
            gy,
            params=(bn.gamma, bn.beta),
            eps=2e-2,
            atol=tol,
            rtol=tol,
            dtype=dtype,
        )


# -- end to end -------------------------------------------------------------------


class _MLP(kusari.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 16)
            self.bn1 = L.BatchNormalization(16)
            self.l2 = L.Linear(16, 2)

    def forward(self, x):
        return self.l2(F.relu(self.bn1(self.l1(x))))


class _CNN(kusari.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.c1 = L.Convolution2D(1, 4, 3, pad=1)
            self.bn1 = L.BatchNormalization(4)
            self.l2 = L.Linear(None, 2)

    def forward(self, x):
        return self.l2(F.relu(self.bn1(self.c1(x))))


def _blobs(n, image):
    """Two separable classes, float16 as a mixed16 pipeline feeds them."""
    rng = np.random.default_rng(5)
    t = rng.integers(0, 2, n).astype(np.int32)
    x = rng.normal(0, 1, (n, 4)) + (2 * t[:, None] - 1) * 1.5
    if image:
        x = np.repeat(x[:, None, :, None], 4, axis=3)  # (n, 1, 4, 4)
    return x.astype(np.float16), t


@pytest.mark.parametrize("net", [_MLP, _CNN])
def test_mixed16_training_with_dynamic_loss_scaling(net):
    x, t = _blobs(64, image=net is _CNN)
    with kusari.using_config("dtype", kusari.mixed16):
        model = L.Classifier(net())
        # A lazy parameter takes the dtype configured when it is initialized.
        model(x, t)
    optimizer = kusari.optimizers.MomentumSGD(lr=0.05).setup(model)
    optimizer.loss_scaling()  # dynamic: starts at 1 and grows
    optimizer.use_fp32_update()
    losses = []
    for _ in range(15):
        optimizer.update(model, x, t)
        losses.append(float(model.loss.array))
    assert model.loss.dtype == F16
    assert np.isfinite(losses).all()
    assert losses[-1] < 0.5 * losses[0]
    assert optimizer.loss_scale > 1.0
    predictor = model.predictor
    # Where Chainer keeps float32 (batch normalization) it stays float32;
    # the other parameters are float16.
    assert predictor.bn1.gamma.dtype == predictor.bn1.avg_mean.dtype == F32
    for name, param in predictor.namedparams():
        assert param.dtype == (F32 if name.startswith("/bn1") else F16), name
        assert np.isfinite(param.array).all(), name


def test_mixed16_is_accepted_where_numpy_takes_a_dtype():
    assert np.zeros(2, kusari.mixed16).dtype == np.float16
    assert np.dtype(kusari.mixed16) == np.float16
