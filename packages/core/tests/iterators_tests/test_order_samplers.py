"""ShuffleOrderSampler.serialize: the random state, saved without pickle."""

from __future__ import annotations

import numpy as np
import pytest

from kusari.iterators import ShuffleOrderSampler
from kusari.serializers import DictionarySerializer, NpzDeserializer, load_npz, save_npz


def _draws(sampler, n=3):
    return [sampler(np.arange(10), 0).tolist() for _ in range(n)]


def _round_trip(make_rng, tmp_path):
    sampler = ShuffleOrderSampler(make_rng(0))
    sampler(np.arange(10), 0)  # move away from the seed's state
    path = tmp_path / "s.npz"
    save_npz(path, sampler)
    expected = _draws(sampler)
    with np.load(path, allow_pickle=False) as f:  # readable without pickle
        files = sorted(f.files)
    fresh = ShuffleOrderSampler(make_rng(123))
    load_npz(path, fresh)
    assert _draws(fresh) == expected
    return files


def test_random_state_round_trip_keeps_legacy_keys(tmp_path):
    files = _round_trip(np.random.RandomState, tmp_path)
    # The key names StandardUpdater snapshots have always used.
    assert files == ["cached_gaussian", "has_gauss", "keys", "pos"]


def test_cached_gaussian_is_restored():
    rng = np.random.RandomState(3)
    rng.standard_normal()  # leaves a cached second gaussian
    sampler = ShuffleOrderSampler(rng)
    saved = DictionarySerializer()
    sampler.serialize(saved)
    assert int(saved.target["has_gauss"]) == 1
    expected = rng.standard_normal()
    other = np.random.RandomState(0)
    ShuffleOrderSampler(other).serialize(NpzDeserializer(saved.target))
    assert other.standard_normal() == expected


@pytest.mark.parametrize(
    "make_rng",
    [
        np.random.default_rng,
        lambda seed: np.random.Generator(np.random.Philox(seed)),
        lambda seed: np.random.RandomState(np.random.PCG64(seed)),
    ],
    ids=["Generator-PCG64", "Generator-Philox", "RandomState-PCG64"],
)
def test_other_bit_generators_round_trip_without_pickle(make_rng, tmp_path):
    files = _round_trip(make_rng, tmp_path)
    assert "state/bit_generator" in files


def test_global_random_state_by_default():
    np.random.seed(7)
    sampler = ShuffleOrderSampler()
    saved = DictionarySerializer()
    sampler.serialize(saved)
    expected = _draws(sampler)
    np.random.seed(99)
    sampler.serialize(NpzDeserializer(saved.target))
    assert _draws(sampler) == expected


def test_missing_keys_keep_the_current_state():
    sampler = ShuffleOrderSampler(np.random.RandomState(5))
    expected = _draws(ShuffleOrderSampler(np.random.RandomState(5)))
    sampler.serialize(NpzDeserializer({}))
    gen_sampler = ShuffleOrderSampler(np.random.default_rng(5))
    gen_expected = _draws(ShuffleOrderSampler(np.random.default_rng(5)))
    gen_sampler.serialize(NpzDeserializer({}))
    assert _draws(sampler) == expected and _draws(gen_sampler) == gen_expected


def test_other_bit_generator_state_is_refused():
    saved = DictionarySerializer()
    ShuffleOrderSampler(np.random.default_rng(0)).serialize(saved)
    philox = ShuffleOrderSampler(np.random.Generator(np.random.Philox(0)))
    with pytest.raises(ValueError, match="PCG64.*Philox"):
        philox.serialize(NpzDeserializer(saved.target))


def test_unknown_random_source_is_skipped():
    # A duck-typed source cannot be saved; a snapshot must still work.
    class Source:
        def permutation(self, n):
            return np.arange(n)

    saved = DictionarySerializer()
    ShuffleOrderSampler(Source()).serialize(saved)
    assert saved.target == {}
    ShuffleOrderSampler(Source()).serialize(NpzDeserializer({}))
