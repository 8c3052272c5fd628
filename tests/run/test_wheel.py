"""A non-editable install works: the wheel holds the configs, the demo, the templates and the
prompts, installs no package named ``analysis``, and ``ham`` runs the demo from it with no checkout
on the path (slow: builds the wheel and runs the demo)."""
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from ham.paths import PROJECT_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", str(PROJECT_ROOT), "--no-deps", "-q", "-w", str(out)],
                   check=True, capture_output=True)
    return next(out.glob("ham-*.whl"))


def test_the_wheel_holds_every_file_of_the_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")} == {"ham", "ham_analysis"}
    assert not any(n.startswith("analysis/") for n in names), "no top-level package named analysis"
    source = {p.relative_to(PROJECT_ROOT).as_posix() for p in (PROJECT_ROOT / "ham").rglob("*")
              if p.is_file() and "__pycache__" not in p.parts and p.name != ".gitkeep"}
    assert source - names == set()
    assert {"ham/conf/config.yaml", "ham/data/demo/questions.jsonl", "ham/report/templates/run.html.j2",
            "ham/methods/prompts/ham_v2.txt", "ham_analysis/cli.py"} <= names


def test_ham_runs_the_demo_from_the_wheel_without_a_checkout(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    # the dependencies come from this environment's site-packages as a plain path entry: its .pth
    # files (the editable checkout among them) are not processed, so only the wheel provides ham
    site = next(Path(p) for p in (env_dir / "lib").glob("python*/site-packages"))
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True,
                   capture_output=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    where = subprocess.run([str(python), "-c", "import ham, ham_analysis; print(ham.__file__)"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, check=True).stdout
    assert str(site) in where and str(PROJECT_ROOT) not in where
    ham = env_dir / "bin" / "ham"
    job = subprocess.run([str(ham), "--cfg", "job"], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert job.returncode == 0, job.stderr[-2000:]
    assert "ham/data/demo/corpus" in job.stdout or "ham_data:demo/corpus" in job.stdout
    done = subprocess.run([str(ham), "limit=2", "progress=false", f"paths.output_root={tmp_path / 'out'}"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 questions, 0 failures" in done.stdout and (tmp_path / "out" / "runs" / "demo").is_dir()
    report = next((tmp_path / "out" / "runs" / "demo").glob("*/report.html"))
    assert "Generated answer" in report.read_text()
