# Two entry points, both create and use .venv at the repo root:
#   make chat   talk to the sales assistant on the embedded default
#   make test   run the test suite (unit, conformance, integration, notebooks)
PY ?= python3.11
VENV := .venv
# llama-cpp-python compiles from source. Portable x86-64 flags: a native build
# turns on AMX kernels that fault on some VMs (general protection fault on the
# first prompt), and LLaVA is not needed. --no-cache-dir so a wheel built earlier
# with other flags is never reused.
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
	-DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

.PHONY: chat test lint bench

$(VENV)/.installed: pyproject.toml
	test -x $(VENV)/bin/python || $(PY) -m venv $(VENV)
	$(VENV)/bin/python -m pip install -q -U pip setuptools wheel
	$(VENV)/bin/python -c "import llama_cpp" 2>/dev/null || CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" \
		$(VENV)/bin/python -m pip install --no-cache-dir 'llama-cpp-python[server]==0.3.36'
	$(VENV)/bin/python -m pip install -e '.[llm,dev]'
	touch $@

chat: $(VENV)/.installed
	$(VENV)/bin/memagent chat --user demo --customer acme

test: $(VENV)/.installed
	$(VENV)/bin/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check . && $(VENV)/bin/ruff format --check . && $(VENV)/bin/python tests/support/lint_types.py \
		&& $(VENV)/bin/python tests/support/lint_layers.py

bench: $(VENV)/.installed
	$(VENV)/bin/python bench/store_bench.py --quick
