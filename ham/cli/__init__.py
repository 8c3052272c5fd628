"""The command-line entry points ([project.scripts] in pyproject.toml); each only parses
arguments and calls the stage that does the work.

    main.py       ham            the Hydra app: one run, or a grid with -m
    ask.py        ham-ask        one question over a corpus, answered and shown
    tree.py       ham-tree       the hierarchy tree of a document (--why, --reconstruct); ham-recon
    show_unit.py  ham-show-unit  the exact string a unit is embedded as
    index.py      ham-index      ingest and index a corpus, no questions
    questions.py  ham-questions  read and check a questions file, no indexing
    compose.py    composing a config outside the app (ham.conf.compose)
"""
