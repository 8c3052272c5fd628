"""One run and many: the pipeline, the resumable runner, grids and experiment tracking.

    pipeline.py    a run end to end from its config; outputs under outputs/runs/<name>/<run id>/
    runner.py      the resumable, concurrent question loop writing predictions.jsonl
    grid.py        a grid's run list; when a run counts as finished
    tracking.py    the W&B mirror and secret redaction
    provenance.py  git state and package versions recorded with a run
"""
