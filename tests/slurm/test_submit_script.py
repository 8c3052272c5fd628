"""slurm/submit_grid.sh hands every override to the driver's `ham -m` line as one word, whatever it
holds (an interpolation, a space): $* unquoted had split or expanded them in the job's shell."""
import os
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_overrides_reach_the_driver_job_as_written(tmp_path):
    fake = tmp_path / "bin" / "sbatch"
    fake.parent.mkdir()
    fake.write_text('#!/usr/bin/env bash\nfor a in "$@"; do case "$a" in --wrap=*) printf %s "${a#--wrap=}" '
                    '> "$WRAP_OUT";; esac; done\necho "Submitted batch job 1"\n')
    fake.chmod(0o755)
    env = {**os.environ, "PATH": f"{fake.parent}:{os.environ['PATH']}", "WRAP_OUT": str(tmp_path / "wrap"),
           "HAM_DRIVER_LOGS": str(tmp_path / "logs")}
    overrides = ["name=${dataset.name}_b", "generator.client.model=a model", "limit=2"]
    subprocess.run([str(ROOT / "slurm" / "submit_grid.sh"), "demo", "slurm_cpu", *overrides], env=env, check=True,
                   capture_output=True, text=True)
    wrap = (tmp_path / "wrap").read_text()
    # what the job's shell runs after the cd: ham -m grid=demo hydra/launcher=slurm_cpu <overrides>
    words = shlex.split(wrap.split("&&", 1)[1])
    assert words[1:] == ["-m", "grid=demo", "hydra/launcher=slurm_cpu", *overrides]
