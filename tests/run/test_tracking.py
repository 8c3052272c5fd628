"""Secret redaction, as config.yaml, run.json and W&B see a config (the default suite covers it;
the W&B mirror itself is a slow test)."""
from ham.run.tracking import REDACTED, redact


def test_secret_looking_keys_are_redacted_at_any_depth():
    cfg = {"site": {"api_key": "sk-123", "OPENAI_API_KEY": "sk-456", "hf_token": "hf_x", "token": "t",
                    "client_secret": "s", "password": "p", "Authorization": "Bearer y",
                    "nested": [{"apikey": "k"}, {"credentials": "c"}]}}
    out = redact(cfg)
    assert all(v == REDACTED for k, v in out["site"].items() if k != "nested")
    assert out["site"]["nested"] == [{"apikey": REDACTED}, {"credentials": REDACTED}]
    assert cfg["site"]["api_key"] == "sk-123", "a copy: the config itself is untouched"


def test_settings_that_only_mention_a_secret_are_kept():
    cfg = {"generator": {"max_tokens": 4000, "max_new_tokens": 96, "api_key_env": "OPENAI_API_KEY",
                         "max_tokens_field": "max_tokens", "require_api_key": False},
           "judge": {"client": {"api_key_env": "JUDGE_KEY", "max_tokens": 1024}}, "key": "value"}
    assert redact(cfg) == cfg


def test_empty_secrets_stay_empty():
    assert redact({"api_key": None, "token": ""}) == {"api_key": None, "token": ""}


def test_a_runs_config_yaml_has_its_secrets_redacted(tmp_path):
    import json

    import yaml

    from ham.conf import compose
    from ham.run.job import run

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "pump.md").write_text("# Pump\n\n## Filter\n\nReplace the filter every six months.\n")
    questions = tmp_path / "questions.jsonl"
    questions.write_text('{"id": "q1", "question": "How often is the filter replaced?"}\n')
    out = run(compose(["dataset=custom", f"dataset.path={corpus}", f"dataset.questions={questions}",
                       f"paths.output_root={tmp_path / 'out'}", f"paths.cache_root={tmp_path / 'cache'}",
                       "progress=false", "metrics.names=[image_f1]", "judge=openai",
                       "judge.client.api_key=sk-do-not-write"]))
    text = (out / "config.yaml").read_text()
    assert "do-not-write" not in text and "do_not_write" not in text
    saved = yaml.safe_load(text)
    assert saved["judge"]["client"]["api_key"] == REDACTED
    assert saved["generator"]["max_sentences"] == 5 and saved["choices"]["generator"] == "extractive", "the rest is kept"
    # nor does any other file of the run hold them (run.json keeps the identity record, redacted)
    leaks = [f.name for f in out.iterdir() if f.is_file() and "do-not-write" in f.read_text(errors="ignore")]
    assert leaks == []
    identity = json.loads((out / "run.json").read_text())["identity"]
    assert identity["judge.client.api_key"] == REDACTED and identity["generator.max_sentences"] == 5


def test_the_wandb_table_reads_predictions_with_the_shared_torn_line_rule(tmp_path, caplog):
    """A torn last line (a kill mid-write) and a malformed one are left out of the W&B table and
    reported, as every other reader of predictions.jsonl does (it had its own json.loads loop)."""
    import json

    from ham.run.tracking import WandbTracker

    class Table:
        def __init__(self, columns):
            self.columns, self.data = columns, []

        def add_data(self, *row):
            self.data.append(row)

    class Run:
        config = type("C", (), {"update": lambda self, *a, **k: None})()
        summary: dict = {}
        logged: list = []

        def log(self, item):
            self.logged.append(item)

    import sys
    import types
    fake = types.SimpleNamespace(Table=Table, Image=lambda p: p, Html=lambda h: h)
    sys.modules["wandb"], saved = fake, sys.modules.get("wandb")
    try:
        (tmp_path / "metrics.json").write_text(json.dumps({"metrics": {"ir": {"mean": 1.0, "n": 1}}}))
        rows = [{"id": "q1", "question": "a", "failure": None, "metrics": {"ir": 1.0}}]
        (tmp_path / "predictions.jsonl").write_text(json.dumps(rows[0]) + "\nnot json\n" + '{"id": "q2", "quest')
        run = Run()
        WandbTracker(run).log_run(tmp_path)
    finally:
        sys.modules.pop("wandb")
        if saved is not None:
            sys.modules["wandb"] = saved
    table = next(item["predictions"] for item in run.logged if "predictions" in item)
    assert [row[0] for row in table.data] == ["q1"]
    assert "predictions.jsonl:2" in caplog.text


def test_one_ham_run_is_one_wandb_run_whatever_the_launches(tmp_path, monkeypatch):
    # a fresh id per launch had made a relaunched or requeued run several W&B runs
    import sys
    import types

    from ham.run.tracking import WandbLogger

    inits = []

    class FakeRun:
        dir = None

        def finish(self, exit_code=0):
            pass

    fake = types.SimpleNamespace(init=lambda **kw: inits.append(kw) or FakeRun(), Settings=lambda **kw: kw)
    monkeypatch.setitem(sys.modules, "wandb", fake)
    for _ in range(2):
        with WandbLogger(mode="disabled").start({"seed": 0}, "abc123", "demo", tmp_path):
            pass
    assert [(i["id"], i["resume"]) for i in inits] == [("abc123", "allow"), ("abc123", "allow")]
