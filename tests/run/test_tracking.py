"""Secret redaction, as config.yaml and W&B see a config (the default suite covers it; the W&B
mirror itself is a slow test)."""
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
