"""Questions and their gold annotations, and one reader per dataset question format.

    questions.py   ``Question``: the one internal form (golds, kinds, topology, ordered evidence,
                   bridge entities, hops, evidence points) every metric reads; ham's JSONL reader
    mramg.py       MRAMG-Bench / HAM-Bench ``{sub}_mqa.jsonl``
    mmdocir.py     MMDocIR ``MMDocIR_annotations.jsonl`` (gold evidence: bboxes, layout ids)
    topograph.py   TopoGraphRAG-Bench ``benchmark.json`` (single hop, bridge chain, synthesis)
    mmdocrag.py    MMDocRAG ``{dev,evaluation}_{15,20}.jsonl`` (gold quotes = MMDocIR layouts)
    evidence.py    gold evidence -> ham unit ids of an ingested corpus, with a record of the mapping

Each reader has ``format`` (its name for ``ham-questions --format``) and
``read(path) -> (questions, problems)``: a bad record is a problem naming its file and line, and
the rest still loads. The dataset's documents are read by ``ham.ingest``.
"""
