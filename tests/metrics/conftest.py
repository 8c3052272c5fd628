import pytest

from ham.conf import compose


@pytest.fixture(scope="session")
def context_scorer():
    """One real BERTScore scorer (the bundled MiniLM folder) shared by the metric tests."""
    from ham.metrics.bertscore import ContextScorer

    return ContextScorer()


@pytest.fixture
def metrics_cfg():
    """The default ``metrics`` group as a run composes it (the option file says only what differs
    from the code defaults)."""
    return compose([], return_hydra_config=False).metrics
