#!/usr/bin/env bash
# Submit a whole grid from a login node.
#
#   slurm/submit_grid.sh GRID [LAUNCHER] [extra ham overrides...]
#   slurm/submit_grid.sh ablation slurm_gpu
#   slurm/submit_grid.sh main_text slurm_gpu generator.client.concurrency=16
#
# Hydra's submitit launcher submits one array job for the grid and then BLOCKS until every run
# has ended, so the driver itself must outlive your login shell: this script submits the driver
# as a small CPU job (1 CPU, 2 GB, long time limit) that launches the grid and waits. Without
# sbatch access for the driver, run the same `ham -m ...` line inside tmux instead.
# Site values (partition, account, ...) come from HAM_SLURM_* variables, see
# conf/hydra/launcher/slurm_gpu.yaml. Relaunching the same grid skips finished runs and resumes
# unfinished ones from their predictions.jsonl.
set -euo pipefail
grid=${1:?usage: submit_grid.sh GRID [LAUNCHER] [overrides...]}
launcher=${2:-slurm_gpu}
shift $(( $# >= 2 ? 2 : 1 ))
root=$(cd "$(dirname "$0")/.." && pwd)
ham=${HAM_BIN:-$root/.venv/bin/ham}
logs=${HAM_DRIVER_LOGS:-$root/outputs/grids/$grid}
mkdir -p "$logs"
# every override quoted for the shell sbatch --wrap runs ('name=${dataset.name}_b', values with spaces)
printf -v extra ' %q' "$@"
[ $# -gt 0 ] || extra=""
sbatch --job-name="ham-driver-$grid" --cpus-per-task=1 --mem=2G \
  --time="${HAM_DRIVER_TIME:-7-00:00:00}" \
  ${HAM_SLURM_PARTITION:+--partition=$HAM_SLURM_PARTITION} \
  ${HAM_SLURM_ACCOUNT:+--account=$HAM_SLURM_ACCOUNT} \
  --output="$logs/driver-%j.log" \
  --wrap="cd '$root' && '$ham' -m grid=$grid hydra/launcher=$launcher$extra"
echo "driver submitted; its log: $logs/driver-<jobid>.log; the grid's runs: $logs/runs/"
