"""ham-index with index.shard_size: its JSON says where the shards ran and each shard's status
(built, reused, failed); a failed shard makes it exit 1 after the report, and the rerun builds
only that shard. Engines on real clusters: tests/run/test_engines_ray.py, tests/slurm/."""
import json
import sys

import pytest

from ham.cli.index import index_main
from ham.paths import PROJECT_ROOT

CORPUS = PROJECT_ROOT / "tests" / "fixtures" / "ingest" / "markdown"


def index_args(tmp_path, *overrides) -> list[str]:
    """``ham-index``'s argv over the markdown fixture corpus, its outputs and cache under ``tmp_path``."""
    return ["ham-index", "dataset=custom", f"dataset.path={CORPUS}", "dataset.questions=unused.jsonl",
            f"paths.output_root={tmp_path}", "progress=false", f"hydra.run.dir={tmp_path / 'hydra'}", *overrides]


def summary(stdout: str) -> dict:
    """The JSON ham-index prints last (Hydra's log lines come before it)."""
    return json.loads(stdout[stdout.index("\n{") + 1:] if not stdout.startswith("{") else stdout)


def statuses(info: dict) -> list[list[str]]:
    return [[s["status"] for s in build["shards"]] for build in info["engine"]["builds"]]


@pytest.mark.slow   # three ham-index runs (MiniLM)
def test_shard_statuses_and_a_failed_shard_redone_alone(tmp_path, monkeypatch, capsys):
    import ham.index.shards as shards

    monkeypatch.setattr(sys, "argv", index_args(tmp_path, "index.shard_size=4"))
    real = shards.run_shard

    def failing_second(task):
        if task.shard == 1:
            raise OSError("disk full (as a test makes it)")
        return real(task)

    monkeypatch.setattr(shards, "run_shard", failing_second)
    with pytest.raises(SystemExit) as exited:
        index_main()
    assert exited.value.code == 1
    out = capsys.readouterr()
    failed = summary(out.out)
    text = failed["engine"]["builds"][0]["shards"]
    assert failed["engine"]["name"] == "local" and len(text) >= 3
    assert [s["status"] for s in text] == ["built", "failed", *["built"] * (len(text) - 2)]
    assert "disk full" in text[1]["error"] and "shard 1" in failed["error"] and "shard 1" in out.err

    monkeypatch.setattr(shards, "run_shard", real)
    index_main()
    again = summary(capsys.readouterr().out)
    assert statuses(again)[0] == ["reused", "built", *["reused"] * (len(text) - 2)]
    assert again["engine"]["built"] == 1 + sum(len(b) for b in statuses(again)[1:])   # the image shards: new
    assert again["text"]["shards"] == len(text) and again["text"]["size"] == again["units"] - again["image"]["size"]

    index_main()
    third = summary(capsys.readouterr().out)
    assert third["engine"]["built"] == third["engine"]["failed"] == 0 and third["text"]["key"] == again["text"]["key"]


@pytest.mark.slow
def test_without_shard_size_no_engine_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", index_args(tmp_path, "engine=ray"))   # no shard_size: Ray is never started
    index_main()
    info = summary(capsys.readouterr().out)
    assert info["engine"] == {"name": "ray", "built": 0, "reused": 0, "failed": 0, "builds": []}
