"""Every component a config can build satisfies the Protocol of the boundary it sits at
(ham/protocols.py), so the pipeline and the runner call them without probing."""
import pytest

from ham import protocols
from ham.conf import compose
from ham.run.build import build_pipeline


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    root = tmp_path_factory.mktemp("protocols")
    return build_pipeline(compose(["progress=false", f"paths.output_root={root}"], return_hydra_config=False))


def test_the_demo_pipelines_components_satisfy_their_protocols(pipeline):
    assert isinstance(pipeline.retriever, protocols.Retriever)
    assert isinstance(pipeline.assembler, protocols.Assembler)
    assert isinstance(pipeline.generator, protocols.Generator)
    assert isinstance(pipeline.evaluator, protocols.Evaluator)
    assert isinstance(pipeline.retriever.encoder, protocols.Encoder)
    assert all(isinstance(index, protocols.Index) for index in pipeline.retriever.indexes.values())


@pytest.mark.parametrize("group,option", [("generator", "openai"), ("generator", "extractive"), ("method", "llm_based"),
                                          ("method", "mllm_based"), ("method", "rule_based"), ("retrieval", "graph"),
                                          ("retrieval", "structural")])
def test_other_options_satisfy_them_too(pipeline, group, option):
    from hydra.utils import instantiate

    cfg = compose([f"{group}={option}", "generator.client.model=m"] if option == "openai" else [f"{group}={option}"],
                  return_hydra_config=False)
    if group == "generator":
        assert isinstance(instantiate(cfg.generator), protocols.Generator)
    elif group == "method":
        made = instantiate(cfg.method, _partial_=True)(descriptions=None, encoder=pipeline.retriever.encoder,
                                                       corpus_root=pipeline.corpus.root)
        assert isinstance(made, protocols.Assembler)
    else:
        made = instantiate(cfg.retrieval, _partial_=True)(corpus=pipeline.corpus, indexes=pipeline.retriever.indexes,
                                                          encoder=pipeline.retriever.encoder, reranker=None)
        assert isinstance(made, protocols.Retriever)


def test_a_component_missing_a_method_does_not_satisfy_it():
    class NoBatch:
        model_id, model_name, pricing, batch_size, is_async, cacheable = "x", "x", None, 1, False, True

        def settings(self):
            return {}

    assert not isinstance(NoBatch(), protocols.Generator)
