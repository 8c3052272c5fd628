"""Every point of a grid leaves a status record, also one that stops before it runs, and a grid
launched without -m is refused instead of running its default cell as if it were the grid."""
import json
import subprocess
import sys


def _ham(*args, cwd):
    return subprocess.run([sys.executable, "-c", "import sys; sys.argv=['ham', *sys.argv[1:]]; "
                           "from ham.cli.main import cli; cli()", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_a_grid_without_multirun_is_refused_and_recorded_failed(tmp_path):
    out = _ham("grid=demo", f"paths.output_root={tmp_path / 'out'}", cwd=tmp_path)
    assert out.returncode != 0 and "grid=demo is a sweep: launch it with `ham -m grid=demo" in out.stderr
    records = [json.loads(p.read_text()) for p in (tmp_path / "out" / "grids" / "demo" / "runs").glob("*.json")]
    assert [r["status"] for r in records] == ["failed"] and "ConfigError" in records[0]["error"]


def test_a_grid_point_whose_dataset_does_not_load_leaves_a_failed_record(tmp_path):
    out = _ham("-m", "grid=demo", "text_repr=ct", "image_repr=si", "dataset=custom",
               f"dataset.path={tmp_path / 'nowhere'}", f"dataset.questions={tmp_path / 'none.jsonl'}",
               f"paths.output_root={tmp_path / 'out'}", cwd=tmp_path)
    assert out.returncode != 0
    records = [json.loads(p.read_text()) for p in (tmp_path / "out" / "grids" / "demo" / "runs").glob("*.json")]
    assert [r["status"] for r in records] == ["failed"], out.stderr[-2000:]


def test_a_scheduler_exit_is_recorded_as_interrupted_not_failed():
    # submitit preempts with an exit and requeues the job: "failed" had said a requeued run had failed
    from ham.run.job import failure_status

    assert failure_status(SystemExit(144)) == failure_status(KeyboardInterrupt()) == "interrupted"
    assert failure_status(ValueError("no questions")) == "failed"
