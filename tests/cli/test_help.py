"""Each command's --help says what that command does and its own settings first; the internal
schema/* groups never appear; the settings reference (docs/options.md) is what the code declares."""
import subprocess
import sys

from ham.cli.help import ham_help, index_help, topo_help
from ham.conf import reference


def test_ham_help_lists_the_run_settings_and_the_real_groups_only():
    out = subprocess.run([sys.executable, "-c", "import sys; sys.argv=['ham', '--help']; "
                          "from ham.cli.main import cli; cli()"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == ham_help()
    assert "schema/" not in out.stdout and "schema" not in reference.groups()
    assert "\n  experiment: " in out.stdout and "demo_topology" in out.stdout and "\n  grid: " in out.stdout
    assert "  seed=0  the run's one seed" in out.stdout


def test_ham_topo_help_is_about_building_topology_benchmarks():
    text = topo_help()
    assert text.startswith("usage: ham-topo") and "topology benchmark" in text
    own = text.index("ham-topo's settings"), text.index("config groups")
    assert own[0] < own[1] and "topo.bridges.max=50" in text[own[0]:own[1]]
    assert index_help().startswith("usage: ham-index") and "without answering a question" in index_help()


def test_the_settings_reference_is_current():
    assert reference.main(["--check"]) == 0, "docs/options.md is stale: python -m ham.conf.reference"


def test_the_reference_documents_every_settings_class_an_option_builds():
    text = reference.render()
    for cls in ("ham.retrieve.retriever.Retriever", "ham.backends.chat.ChatClient", "ham.enrich.summaries.HFSummariser",
                "ham.datasets.questions.DatasetSettings"):
        assert f"### `{cls}`" in text
    assert "| `k_t` | int | `15` | >= 0 | hashed |" in text
