import pytest
from omegaconf import OmegaConf

from ham.conf import CONF_DIR


@pytest.fixture(scope="session")
def context_scorer():
    """One real BERTScore scorer (the bundled MiniLM folder) shared by the metric tests."""
    from ham.metrics.bertscore import ContextScorer

    return ContextScorer()


@pytest.fixture
def metrics_cfg():
    return OmegaConf.load(CONF_DIR / "metrics" / "default.yaml")
