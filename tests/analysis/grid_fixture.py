"""Builds run folders shaped exactly as ``ham`` writes them (config.yaml, run.json,
predictions.jsonl, metrics.json), with scores chosen by the test, plus a tiny corpus whose images
have known colours. metrics.json is aggregated from the predictions by ham's own code."""
from __future__ import annotations

import json
from pathlib import Path

import yaml
from PIL import Image

from ham.cache import key_of
from ham.generate.cost import cost_summary
from ham.metrics.average import AVERAGE_SCORE_PARTS, average_score
from ham.metrics.registry import METRICS_VERSION, aggregate, registry

RED, BLUE, GREEN = (220, 20, 20), (20, 40, 220), (30, 170, 60)
PRICES = {"gpt4o": {"prompt": 2.50, "completion": 10.00}}


QUESTIONS = [
    {"id": "q1", "question": "How do I open the <b>red</b> panel?",
     "reference_answer": "Open the panel. ![red panel](figures/red.png) Then <script>alert(1)</script> close it."},
    {"id": "q2", "question": "Where is the blue switch?",
     "reference_answer": "It is here. ![blue switch](figures/blue.png)"},
    {"id": "q3", "question": "What is the weather?", "reference_answer": "Not covered."},
]
GOLD = {q["id"]: {"reference_answer": q["reference_answer"],
                  "gold_images": [s.split("](")[1].split(")")[0] for s in q["reference_answer"].split("![")[1:]]}
        for q in QUESTIONS}


def make_corpus(root: Path) -> Path:
    """corpus/guide/figures/{red,blue,green}.png and a questions file with reference answers."""
    figures = root / "corpus" / "guide" / "figures"
    figures.mkdir(parents=True, exist_ok=True)
    for name, colour in (("red", RED), ("blue", BLUE), ("green", GREEN)):
        Image.new("RGB", (160, 100), colour).save(figures / f"{name}.png")
    (root / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return root


GENERATORS = {"gpt-4o": "gpt4o", "gpt-5": "gpt5", "deepseek-v3": "deepseek_v3"}


def config(dataset: str, root: Path | None = None, method: str = "ham", generator: str = "gpt-4o",
           text_repr: str = "ct", image_repr: str = "si", seed: int = 0, overrides: tuple = ()) -> dict:
    """A run's config as ham composes it (config, option choices and identity record)."""
    from ham.conf import compose, plain
    from ham.run.identity import identity
    from ham.run.job import hydra_runtime

    corpus = root / "corpus" if root else Path(f"missing/{dataset}/corpus")
    questions = root / "questions.jsonl" if root else Path(f"missing/{dataset}/questions.jsonl")
    cfg = compose(["dataset=custom", f"dataset.name={dataset}", f"dataset.path={corpus}",
                   f"dataset.questions={questions}", f"method={method}",
                   f"generator={GENERATORS.get(generator, generator)}", f"text_repr={text_repr}",
                   f"image_repr={image_repr}", f"seed={seed}", *overrides])
    choices, _ = hydra_runtime(cfg)
    return {"config": plain(cfg), "choices": choices, "identity": identity(cfg), "corpus_root": str(corpus)}


def prediction(qid: str, metrics: dict, answer: list | None = None, failure: dict | None = None,
               usage: dict | None = None, gold: dict | None = None) -> dict:
    gen = {"model": "m", "usage": usage or {}, "seconds": 0.1}
    names = [n for n in registry() if n != "average_score"]
    scores = {name: metrics.get(name) for name in names}
    return {"id": qid, "question": f"question {qid}", "gold": gold or {}, "retrieved_text": [], "retrieved_images": [],
            "prompt": {"text": "p", "template": "ham_v1", "slots": {}}, "raw_answer": "raw",
            "answer": answer if failure is None else None, "failure": failure, "generation": gen,
            "metrics": scores | {"average_score": metrics.get("average_score", average_score(metrics))}}


def judge_failed(rows: list[dict]) -> dict[str, int]:
    """Per metric, the questions whose judge call failed (as ``Evaluator.summary`` counts them)."""
    failed: dict[str, int] = {}
    for r in rows:
        for name, detail in (r["metrics"].get("judge") or {}).items():
            if detail.get("error"):
                failed[name] = failed.get(name, 0) + 1
    return failed


def write_run(folder: Path, cfg: dict, rows: list[dict], judge: bool = False,
              pricing: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(yaml.safe_dump({**cfg["config"], "choices": cfg["choices"]}))
    run_id = key_of(cfg["identity"])[:10]
    (folder / "run.json").write_text(json.dumps({"run_id": run_id, "identity": cfg["identity"],
                                                 "choices": cfg["choices"], "corpus_root": cfg["corpus_root"]}))
    (folder / "predictions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    names = list(registry())
    not_computed = {} if judge else {m: "not computed: no judge configured (judge=none)"
                                     for m, s in registry().items() if s.needs_judge}
    failures: dict[str, int] = {}
    for r in rows:
        if r["failure"]:
            failures[r["failure"]["reason"]] = failures.get(r["failure"]["reason"], 0) + 1
    metrics = aggregate([r["metrics"] for r in rows], names, not_computed, judge_failed(rows))
    metrics["average_score"]["parts"] = [p for p in AVERAGE_SCORE_PARTS if p not in not_computed]   # as Evaluator
    summary = {"run_id": run_id, "n_questions": len(rows), "metrics_version": METRICS_VERSION, "failures": failures,
               "n_failures": sum(failures.values()), "bertscore_hash": "test-hash",
               "cost": cost_summary(rows, {"pricing": pricing, "prices": PRICES}, None),
               "metrics": metrics,
               "judge": {"model": "openai:judge"} if judge else {"backend": "none"}}
    (folder / "metrics.json").write_text(json.dumps(summary))
    return folder


def paper_like_rows(means: dict, n: int = 4) -> list[dict]:
    """n predictions whose per-question scores average exactly to ``means``."""
    rows = []
    for i in range(n):
        delta = 0.01 * (1 if i % 2 else -1)
        metrics = {k: (v + delta * (v < 1 and v > 0.02) if k != "overall_quality" else v + 10 * delta)
                   for k, v in means.items()}
        rows.append(prediction(f"q{i}", metrics))
    return rows


XSS = "<script>document.body.setAttribute('data-pwned','1')</script>"


def make_viewer_run(root: Path, image_repr: str = "si") -> Path:
    """A run over the fixture corpus whose texts carry markup that must be shown, not run."""
    make_corpus(root)
    hits = [{"unit_id": "u-red", "source": "guide/a.html", "image": "figures/red.png",
             "image_path": "guide/figures/red.png", "heading_path": ["1. Panels <i>x</i>"],
             "caption": 'the "red" panel & <b>bold</b>', "score": 0.91},
            {"unit_id": "u-green", "source": "guide/a.html", "image": "figures/green.png",
             "image_path": "guide/figures/green.png", "heading_path": ["2. Other"], "caption": "", "score": 0.5}]
    text = [{"unit_id": "t1", "source": "guide/a.html", "heading_path": ["1. Panels", "1.1 Red"],
             "text": "Press the <button> to open " + XSS, "score": 0.8}]
    rows = [
        {**prediction("q1", {"image_f1": 1.0, "img_cbs": 0.9, "ir": 1.0}, gold=GOLD["q1"],
                      answer=[{"type": "text", "text": "Open the red panel. " + XSS},
                              {"type": "image", "image": "figures/red.png", "unit_id": "u-red"},
                              {"type": "text", "text": "<img src=x onerror=\"document.title='pwned'\"> done"}]),
         "question": "How do I open the <b>red</b> panel?", "retrieved_text": text, "retrieved_images": hits},
        {**prediction("q2", {"image_f1": 0.0, "img_cbs": 0.0, "ir": 0.0}, gold=GOLD["q2"],
                      failure={"reason": "cites_unknown_image", "detail": "img9 <not given>"}),
         "question": "Where is the blue switch?", "retrieved_images": hits[1:]},
        {**prediction("q3", {"image_f1": 0.0, "img_cbs": None, "ir": None}, gold=GOLD["q3"],
                      answer=[{"type": "text", "text": "Sunny."}, {"type": "image", "image": "figures/gone.png"}]),
         "question": "What is the weather?"},
    ]
    return write_run(root / "runs" / "demo" / f"run-{image_repr}", config("demo", root, image_repr=image_repr), rows)
