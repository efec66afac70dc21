# Two commands for a fresh machine (Python 3.11 and pip):
#   make demo   install into .venv and print the benchmark table on the synthetic assembly
#   make test   install into .venv and run the test suite (what CI runs)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# torch==2.13.0 first: on the reference machine it is a CPU wheel on disk; resolving the
# package's torch range with no torch installed would pull several GB of CUDA packages.
TORCH  := torch==2.13.0

.PHONY: install demo test lint figures clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet $(TORCH)
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev,minari]"
	touch $@

demo: install
	$(BIN)/assembly-gym bench

# pytest exits with 5 when it collected no tests: that is a failure too.
test: install
	$(BIN)/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc

lint: install
	$(BIN)/ruff check .

# The README's figures: a full synthetic benchmark run, two of its plots kept.
figures: install
	$(BIN)/assembly-gym bench --quiet --out runs/figures
	mkdir -p docs/figures
	cp runs/figures/synthetic_metrics.png runs/figures/synthetic_dendrogram.png docs/figures/

clean:
	rm -rf $(VENV) .pytest_cache
