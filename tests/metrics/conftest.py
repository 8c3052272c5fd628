import pytest
from omegaconf import OmegaConf

from ham.paths import PROJECT_ROOT


@pytest.fixture(scope="session")
def context_scorer():
    """One real BERTScore scorer (the bundled MiniLM folder) shared by the metric tests."""
    from ham.metrics.bertscore import ContextScorer

    return ContextScorer()


@pytest.fixture
def metrics_cfg():
    return OmegaConf.load(PROJECT_ROOT / "conf" / "metrics" / "default.yaml")
