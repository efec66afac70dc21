# Two stacks, both tested (see README, "Set-up"):
#   current   the newest Gymnasium 1.x, SB3 and sb3-contrib: what `pip install assembly-gym` gives
#             (plus the [ray] extra, whose tests run on this stack only)
#   research  Gymnasium 0.29, SB3 2.2.1 and imitation 1.0.1, pinned in constraints.txt
#
#   make demo            install the current stack into .venv-current, run `assembly-gym bench`
#   make test            both stacks: install each, run the test suite and the type checker (CI)
#   make typecheck       mypy over the package on the current stack
#   make test-current    the current stack only (.venv-current)
#   make test-research   the research stack only (.venv-research)
#   make browser         Chromium for the report's browser test, where it can be installed
PYTHON   ?= python3
CURRENT  := .venv-current
RESEARCH := .venv-research
# torch==2.13.0 first: on the reference machine it is a CPU wheel on disk; resolving the
# package's torch range with no torch installed would pull several GB of CUDA packages.
TORCH    := torch==2.13.0

.PHONY: install install-research browser demo test test-current test-research typecheck lint \
        figures clean

install: $(CURRENT)/.installed
install-research: $(RESEARCH)/.installed

$(CURRENT)/.installed: pyproject.toml setup.py
	$(PYTHON) -m venv $(CURRENT)
	$(CURRENT)/bin/python -m pip install --quiet $(TORCH)
	$(CURRENT)/bin/python -m pip install --quiet -e ".[dev,minari,ray]"
	touch $@

$(RESEARCH)/.installed: pyproject.toml setup.py constraints.txt
	$(PYTHON) -m venv $(RESEARCH)
	$(RESEARCH)/bin/python -m pip install --quiet $(TORCH)
	$(RESEARCH)/bin/python -m pip install --quiet -c constraints.txt -e ".[dev,minari,imitation]"
	touch $@

# tests/benchmarks/test_report_browser.py opens report.html in headless Chromium: installed here
# as root with apt-get (an `apt-get update` only if the first try fails), else that test skips.
# Never fails the build.
BROWSERS := chromium chromium-browser google-chrome
APT_CHROMIUM := DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	chromium >/dev/null 2>&1
browser:
	@for b in $(BROWSERS); do command -v $$b >/dev/null 2>&1 && exit 0; done; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    $(APT_CHROMIUM) || { apt-get update -qq >/dev/null 2>&1 && $(APT_CHROMIUM); } || \
	    echo "chromium could not be installed: the browser test of report.html will skip"; \
	else echo "no chromium (installing it needs root and apt-get): the browser test will skip"; fi

demo: install
	$(CURRENT)/bin/python -m assembly_gym bench

test: test-current test-research

# pytest exits with 5 when it collected no tests: that is a failure too.
define run_tests
	@echo "== $(1) stack: $$($(2)/bin/python -c 'import gymnasium, stable_baselines3 as sb3; print("Gymnasium", gymnasium.__version__, "SB3", sb3.__version__)')"
	$(2)/bin/python -m pytest -q; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$rc
endef

test-current: install browser
	$(call run_tests,current,$(CURRENT))
	$(call typecheck,$(CURRENT))

test-research: install-research browser
	$(call run_tests,research,$(RESEARCH))
	$(call typecheck,$(RESEARCH))

# mypy over the installed package, against the stack's own Gymnasium (settings: mypy.ini).
# mypy cannot follow the editable install's import hook, so it reads setuptools' "strict"
# editable tree: links named assembly_gym/envs/… to this checkout's envs/… (under build/).
define typecheck
	rm -rf build/__editable__.* build/typecheck
	$(1)/bin/python -c "from setuptools import build_meta as b; \
	    b.build_editable('build/typecheck', {'editable_mode': 'strict'})" >/dev/null
	MYPYPATH="$$(echo build/__editable__.assembly_gym-*)" $(1)/bin/python -m mypy
endef

typecheck: install
	$(call typecheck,$(CURRENT))

lint: install
	$(CURRENT)/bin/python -m ruff check .

# The README's figures: a full synthetic benchmark run on the research stack (its table
# includes imitation's agents), two of its plots kept; and the rendering guide's picture.
figures: install-research
	$(RESEARCH)/bin/python -m assembly_gym bench --quiet --out runs/figures
	mkdir -p docs/figures
	cp runs/figures/synthetic_metrics.png runs/figures/synthetic_dendrogram.png docs/figures/
	$(RESEARCH)/bin/python docs/figures/rendering.py

clean:
	rm -rf $(CURRENT) $(RESEARCH) .pytest_cache
