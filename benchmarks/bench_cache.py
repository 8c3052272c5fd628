"""A grid's second cell: the demo run twice in one fresh cache, the second with only the generator
changed. Index time is the offline stage of ``ham.index.build.prepare`` as each run records it in
metrics.json (summaries + descriptions + embeddings and indexes; in the first run this includes
loading the encoder, which a fully cached run only loads for its first query). Target: second /
first <= 0.1.

    .venv/bin/python benchmarks/bench_cache.py [--limit 2]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ham.cli.compose import compose_config  # noqa: E402
from ham.run.job import run  # noqa: E402


def index_seconds(out_dir: Path) -> tuple[float, dict]:
    metrics = json.loads((out_dir / "metrics.json").read_text())
    seconds = metrics["index"]["seconds"]
    return sum(seconds.values()), metrics["index"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--limit", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = [f"paths.output_root={tmp}", "progress=false", f"limit={args.limit}"]
        first, info1 = index_seconds(run(compose_config(base)))
        second, info2 = index_seconds(run(compose_config([*base, "generator.max_sentences=2", "generator.per_unit=2"])))
    assert all(info2[m]["reused"] and info2[m]["embeddings_reused"] for m in ("text", "image"))
    print(f"first run (empty cache): index stage {first:.2f} s  {info1['seconds']}")
    print(f"second run (generator changed): index stage {second:.3f} s  {info2['seconds']}")
    print(f"ratio second / first: {second / first:.4f}   (target <= 0.1); every embedding and index reused")


if __name__ == "__main__":
    main()
