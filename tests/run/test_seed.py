"""``seed`` seeds everything stochastic a run does, and nothing where nothing is stochastic: two
seeds differ where sampling is on and agree where it is off."""
from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ham.backends.chat import ChatClient
from ham.conf import compose
from ham.generate.cache import CachedGenerator
from ham.generate.hf import HFGenerator
from ham.generate.openai_chat import OpenAIGenerator
from ham.index.dense import IVFPQSpec
from ham.run.build import load_dataset_questions
from tests.generate.conftest import text_prompt
from tests.support.chat_server import ChatServer
from tests.support.tiny_models import tiny_causal_lm


def _question_ids(*overrides) -> list[str]:
    questions, _ = load_dataset_questions(compose(list(overrides)))
    return [q.id for q in questions]


def test_question_sampling_follows_the_run_seed():
    assert _question_ids("dataset.sample=10", "seed=0") != _question_ids("dataset.sample=10", "seed=1")
    assert _question_ids("dataset.sample=10", "seed=0") == _question_ids("dataset.sample=10", "seed=0")
    assert _question_ids("seed=0") == _question_ids("seed=1")                 # no sampling: same questions
    pinned = ("dataset.sample=10", "dataset.sample_seed=36")                 # the paper's Recipe pin wins
    assert _question_ids(*pinned, "seed=0") == _question_ids(*pinned, "seed=1")


@pytest.fixture(scope="module")
def lm(tmp_path_factory):
    return tiny_causal_lm(tmp_path_factory.mktemp("seed-lm"))


def _texts(lm, temperature: float, seed: int) -> list[str]:
    gen = HFGenerator(str(lm), max_new_tokens=12, temperature=temperature, seed=seed, batch_size=2,
                      truncation_is_failure=False)
    return [g.text for g in gen.generate_batch([text_prompt(p) for p in ("Open the valve.", "Check the oil.")])]


def test_local_sampling_follows_the_seed_and_greedy_decoding_does_not(lm, tmp_path):
    assert _texts(lm, 1.0, 0) == _texts(lm, 1.0, 0)
    assert _texts(lm, 1.0, 0) != _texts(lm, 1.0, 1)
    assert _texts(lm, 0.0, 0) == _texts(lm, 0.0, 1)
    # the generation cache keeps a sampled reply per seed, a greedy one for every seed
    key = lambda t, s: CachedGenerator(HFGenerator(str(lm), temperature=t, seed=s), tmp_path).key(text_prompt("x"))  # noqa: E731
    assert key(1.0, 0) != key(1.0, 1) and key(0.0, 0) == key(0.0, 1)


def test_a_sampled_reply_does_not_depend_on_what_shares_its_batch(lm):
    # one stream per batch made the reply depend on batch_size and on which prompts the cache held
    def texts(prompts, batch_size):
        gen = HFGenerator(str(lm), max_new_tokens=12, temperature=1.0, seed=0, batch_size=batch_size,
                          truncation_is_failure=False)
        return [g.text for g in gen.generate_batch([text_prompt(p) for p in prompts])]

    prompts = ("Open the valve.", "Check the oil.", "Drain the tank.")
    together = texts(prompts, 3)
    assert together == texts(prompts, 1) == [texts([p], 3)[0] for p in prompts]


def test_truncation_is_failure_keys_the_generation_cache(lm, tmp_path):
    # a cut reply stored as a success under false must not be served to a run that counts it a failure
    key = lambda flag: CachedGenerator(HFGenerator(str(lm), truncation_is_failure=flag), tmp_path).key(  # noqa: E731
        text_prompt("x"))
    assert key(True) != key(False)


def test_remote_sampling_sends_the_seed_and_keys_the_cache_by_it():
    with ChatServer() as server:
        async def ask(temperature, seed):
            gen = OpenAIGenerator(ChatClient("m", base_url=server.base_url, temperature=temperature, seed=seed))
            try:
                await gen.agenerate(text_prompt("hello"))
            finally:
                await gen.aclose()
            return gen.settings()
        sampled, greedy = asyncio.run(ask(0.7, 3)), asyncio.run(ask(0.0, 3))
    bodies = list(server.requests)
    assert bodies[0]["seed"] == 3 and "seed" not in bodies[1]
    assert sampled["seed"] == 3 and "seed" not in greedy
    assert ChatClient("m", temperature=None, seed=5).identity()["seed"] == 5   # the server's default samples


def test_ivfpq_training_follows_the_seed():
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((2000, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)

    def codes(seed):
        spec = IVFPQSpec(nlist=8, m=4, nbits=4, train_size=500, min_vectors=100, use_gpu="false", seed=seed)
        index = spec.build(vectors)
        import faiss
        return faiss.vector_to_array(index.pq.centroids), spec.params()

    (a, pa), (b, pb), (a2, _) = codes(0), codes(1), codes(0)
    assert np.array_equal(a, a2) and not np.array_equal(a, b)
    assert pa != pb   # the index cache key follows the seed


def test_seed_reaches_every_sampling_component_through_the_config():
    cfg = compose(["seed=11", "generator=openai", "judge=openai", "summariser=openai", "summariser.client.model=m",
                   "describer=openai", "describer.client.model=m", "index=ivfpq"])
    assert cfg.generator.client.seed == cfg.judge.client.seed == cfg.summariser.client.seed == 11
    assert cfg.describer.client.seed == 11
    assert cfg.index.seed == 11 and cfg.topo.seed == 11
    assert compose(["seed=11", "generator=hf"]).generator.seed == 11


def test_analysis_bootstrap_follows_its_seed():
    from ham_analysis.stats import bootstrap_ci

    values = list(np.random.default_rng(3).random(30))
    assert bootstrap_ci(values, 2000, seed=0).low != bootstrap_ci(values, 2000, seed=1).low
    assert bootstrap_ci(values, 2000, seed=0).low == bootstrap_ci(values, 2000, seed=0).low


def test_topo_unit_order_follows_its_seed():
    from ham.topo.build import select_units
    from ham.index.entities import EntityIndex
    from types import SimpleNamespace

    pool = [SimpleNamespace(unit_id=f"u{i}") for i in range(30)]   # select_units reads the ids only
    index = EntityIndex.build(SimpleNamespace(of_unit={}, surface={}), [u.unit_id for u in pool])
    assert select_units(pool, index, 5, [], 0) != select_units(pool, index, 5, [], 1)
    assert select_units(pool, index, 5, [], 0) == select_units(pool, index, 5, [], 0)
