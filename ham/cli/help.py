"""``--help`` of the Hydra commands (``ham``, ``ham-index``, ``ham-topo``): what the command does,
its own settings first, then the config groups a user composes from (packaged and site options;
the internal ``schema/*`` groups never). Hydra's own help stays at ``--hydra-help``."""
from __future__ import annotations

import dataclasses
import textwrap

from ham.settings import settings_of


def _setting_lines(cls, prefix: str) -> list[str]:
    lines = []
    for s in settings_of(cls).values():
        if dataclasses.is_dataclass(s.type):
            lines += _setting_lines(s.type, f"{prefix}{s.name}.")
            continue
        default = "required" if s.required else repr(s.default)
        lines.append(f"  {prefix}{s.name}={default}" + (f"  {s.doc}" if s.doc else ""))
    return lines


def command_help(usage: str, does: str, own: list[str] | None = None, own_title: str = "") -> str:
    from ham.conf.reference import groups

    width = 100
    out = [f"usage: {usage}", "", *textwrap.wrap(" ".join(does.split()), width), ""]
    if own:
        out += [own_title, *own, ""]
    out.append("config groups (group=option; docs/options.md lists every setting):")
    for group, options in groups().items():
        out += textwrap.wrap(", ".join(options), width, initial_indent=f"  {group}: ",
                             subsequent_indent=" " * (len(group) + 4))
    out += ["", "any setting: key=value (ham --cfg job prints the composed config); -m: a sweep; "
                "--hydra-help: Hydra's own flags"]
    return "\n".join(out) + "\n"


def ham_help() -> str:
    from ham.conf.root import GROUPS, Root

    own = [line for line in _setting_lines(Root, "") if line.split("=")[0].strip() not in GROUPS]
    return command_help(
        "ham [group=option ...] [key=value ...] [-m]",
        "Runs HAM-RAG on a dataset: ingest, represent, index (cached), retrieve, assemble the prompt, "
        "generate and score every question, resumably, into outputs/runs/<name>/<run id>/. `ham` alone "
        "runs the bundled demo; `ham experiment=NAME` a named run; `ham -m grid=NAME` a sweep.",
        own, "the run's own settings:")


def index_help() -> str:
    return command_help(
        "ham-index [group=option ...] [key=value ...] [-m]",
        "Ingests and indexes the configured corpus into the shared cache (summaries, descriptions, "
        "embeddings, faiss and sparse indexes) without answering a question, and prints what was built "
        "and reused. Takes ham's overrides; a later `ham` with the same settings reuses everything.")


def topo_help() -> str:
    from ham.topo.settings import TopoSettings

    return command_help(
        "ham-topo [topo.key=value ...] [group=option ...]",
        "Builds a validated topology benchmark over the configured corpus (TopoGraphRAG-Bench's "
        "single-hop, bridge-chain and synthesis questions, each counterfactually checked) with the "
        "configured generator, into topo.out: questions.jsonl, rejected.jsonl, report.md. Needs a "
        "language model: generator=openai generator.client.model=NAME, or generator=smollm2 to try the "
        "plumbing. docs/topo_build.md explains the checks.",
        _setting_lines(TopoSettings, "topo."), "ham-topo's settings (the topo group):")


def wants_help(argv: list[str]) -> bool:
    return any(a in ("-h", "--help") for a in argv)
