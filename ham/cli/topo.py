"""``ham-topo [OVERRIDE ...]``: build a validated topology benchmark (single-hop, bridge-chain and
synthesis questions, counterfactually checked) over the configured corpus with the configured
generator; takes the same overrides as ``ham`` plus the ``topo`` group (``ham/topo/build.py``)."""
from __future__ import annotations


def topo_main() -> None:
    import json
    import sys

    import hydra

    from ham.cli.help import topo_help, wants_help

    if wants_help(sys.argv[1:]):
        print(topo_help(), end="")
        return
    from ham.conf import CONF_DIR, check, register

    register()

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def _build(cfg) -> None:
        from ham.topo.build import build

        check(cfg)
        out = build(cfg)
        report = json.loads((out / "report.json").read_text())
        print((out / "report.md").read_text())
        print(f"questions: {out / 'questions.jsonl'} ({report['kept']['total']} kept, "
              f"{report['rejected']['total']} rejected: {out / 'rejected.jsonl'})")
        print(f"run them:  ham dataset=custom dataset.name={report['dataset']}_topo dataset.path={report['corpus_root']} "
              f"dataset.questions={out / 'questions.jsonl'} metrics=topology")

    _build()


if __name__ == "__main__":
    topo_main()
