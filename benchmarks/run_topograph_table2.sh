#!/usr/bin/env bash
# TopoGraphRAG-Bench's Table 2 with ham in it (grid=topograph_table2) on a GPU machine: one vLLM
# server answers every LLM call of every cell (the systems' extraction and answers, ham's generator)
# and the judge. Needs ham's venv (make install), the systems' venvs (make systems-venvs) and vLLM
# importable by $VLLM_PYTHON. Prints the tables ham-analyze writes (table2 with 95% CIs, the
# breakdowns by topology and modality path, Appendix A's cost table).
#   MODEL=Qwen/Qwen2.5-7B-Instruct bash benchmarks/run_topograph_table2.sh
# TopoGraphRAG-Bench itself: DATASET="dataset=topograph dataset.path=... dataset.questions=..."
# NAME=<its dataset.name> SCOPE=document (the benchmark's per-document indexing; the demo's
# questions span documents, so the demo default is corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
MODEL=${MODEL:?the served model (a local folder or a hub id in the HF cache)}
PORT=${PORT:-8000}
OUT=${OUT:-outputs/table2}
NAME=${NAME:-demo_topology}
SCOPE=${SCOPE:-corpus}
DATASET=${DATASET:-}
SYSTEMS=${SYSTEMS:-lightrag,hipporag,raganything}   # megarag also needs system.embedding_model=<GME folder> and a vision MODEL (docs/systems.md)
VLLM_PYTHON=${VLLM_PYTHON:-python}
EXTRA=${EXTRA:-}
mkdir -p "$OUT"
"$VLLM_PYTHON" -m vllm.entrypoints.openai.api_server --model "$MODEL" --served-model-name served \
    --port "$PORT" --max-model-len 16384 > "$OUT/vllm.log" 2>&1 &
VLLM=$!
trap 'kill $VLLM' EXIT
for _ in $(seq 180); do curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null && break; sleep 5; done
curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null || { echo "vLLM did not come up: $OUT/vllm.log" >&2; exit 1; }
URL="http://127.0.0.1:$PORT/v1"
COMMON=(generator.client.model=served generator.client.base_url="$URL" judge=openai
        judge.client.model=served judge.client.base_url="$URL" paths.output_root="$OUT" progress=false)
# $DATASET and $EXTRA are word-split on purpose (several overrides each)
# shellcheck disable=SC2086
.venv/bin/ham -m grid=topograph_table2 cell="$SYSTEMS" system.index_scope="$SCOPE" "${COMMON[@]}" $DATASET $EXTRA
# shellcheck disable=SC2086
.venv/bin/ham -m grid=topograph_table2 cell=ham,ham_graph "${COMMON[@]}" $DATASET $EXTRA
.venv/bin/ham-analyze "$OUT/runs/$NAME"
