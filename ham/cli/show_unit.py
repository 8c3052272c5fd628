"""``ham-show-unit UNIT_ID [OVERRIDE ...]``: the exact string a unit is embedded as under a run
config (``--find TEXT`` lists unit ids)."""
from __future__ import annotations

import sys

from ham.cli.compose import compose_config

SHOW_UNIT_HELP = """usage: ham-show-unit [--find TEXT] [UNIT_ID ...] [OVERRIDE ...]

Print the exact string each unit is embedded as, under the run config composed from the Hydra
OVERRIDEs (the same ones `ham` takes), e.g.:

  ham-show-unit 'gnucash/part.managing_personal:58' text_repr=ct
  ham-show-unit --find "Reconcile from the menu" text_repr=st
  ham-show-unit 'markdown/loans:12' image_repr=li dataset=custom dataset.path=DIR dataset.questions=FILE

--find TEXT lists the units whose content contains TEXT (case-insensitive) with their ids.
The string goes to stdout, a header per unit (id, modality, representation, source) to stderr.
"""


def show_unit_main(argv: list[str] | None = None) -> int:
    from ham.index.build import build_representer
    from ham.run.build import configured_cache, load_configured_corpus, offline_parts

    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(SHOW_UNIT_HELP, end="")
        return 0 if args else 2
    find = None
    if args[0] == "--find":
        if len(args) < 2:
            print("ham-show-unit: --find needs TEXT", file=sys.stderr)
            return 2
        find, args = args[1].lower(), args[2:]
    overrides = [a for a in args if "=" in a]
    unit_ids = [a for a in args if "=" not in a]
    cfg = compose_config(overrides)
    cache = configured_cache(cfg)
    corpus = load_configured_corpus(cfg, cache)
    if find is not None:
        for u in corpus.units:
            if find in u.content.lower():
                print(f"{u.unit_id}\t{u.modality}\t{' > '.join(u.full_path)}\t{u.content[:80]}")
        return 0
    by_id = corpus.by_id
    unknown = [i for i in unit_ids if i not in by_id]
    if unknown:
        print(f"ham-show-unit: no unit {', '.join(map(repr, unknown))} in {corpus.root} "
              f"(ham-show-unit --find TEXT lists unit ids)", file=sys.stderr)
        return 1
    representer, _ = build_representer(corpus, cache, offline_parts(cfg, progress=False))
    for n, unit_id in enumerate(unit_ids):
        unit = by_id[unit_id]
        print(f"# {unit_id} ({unit.modality}, {representer.for_modality(unit.modality).name}) from {unit.source}", file=sys.stderr)
        print(("\n" if n else "") + representer(unit))
    return 0
