"""Questions and their gold annotations, and the loaders of each dataset's question format.

    questions.py   ``Question`` (one internal form every metric reads) and the JSONL loader
"""
