# Machine Learning from scratch: build, test and run the book.
# Needs only make and python3 (3.11 from 3.11.5, 3.12 or 3.13), and npm for the site test's axe-core; everything
# else goes into $(VENV).
# `make` alone lists the targets.

VENV ?= .venv
# The interpreter the venv is made from: Python 3.11 (3.11.5 or later: the
# locked soupsieve needs it), 3.12 or 3.13. Any other stops with a message.
PYTHON ?= python3
PY = $(VENV)/bin/python
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed
JB = $(BIN)/jupyter-book

# Put the venv first on PATH so that every tool, and every kernel they start,
# is the venv's.
export PATH := $(abspath $(BIN)):$(PATH)

# Notebook kernels must keep their default inline matplotlib backend: an
# MPLBACKEND inherited from the shell (Agg, TkAgg, ...) would stop figures from
# being stored in the notebooks and shown in the book. Plain Python (pytest)
# gets the non-interactive Agg backend. The notebooks multiply many small
# matrices, for which OpenBLAS's worker threads cost more than they save on two
# cores (chapter 5 runs about 10% faster on one); results are the same.
NB_ENV = env -u MPLBACKEND OPENBLAS_NUM_THREADS=1
# The book's builds (HTML and PDF) store the figures with twice the pixels: the same size on screen, 200 pixels per
# inch or more on paper (implementations/notebook/plotting.py). A reader's kernel (make lab, make execute) renders at screen
# resolution, which is faster.
BOOK_ENV = $(NB_ENV) MLFS_FIGURE_SCALE=2

.DEFAULT_GOAL := help
.PHONY: help install lock book pdf test test-pythons nbval-matrix execute lab lab-student lab-pages data language-model language-model-eval cnn-comparison batchnorm-grid generative-comparison seq2seq-comparison bench \
	student clean distclean cache-check

help:
	@echo "Targets:"
	@echo "  make install    create $(VENV), install requirements.txt and the site test's axe-core (when they changed)"
	@echo "  make book       build the HTML book into _build/html (runs changed notebooks)"
	@echo "  make pdf        build the PDF edition into $(PDF) (needs TeX: see tools/tex-packages.txt)"
	@echo "  make test       ruff, pytest, strict nbval natively and in a foreign numerical environment,"
	@echo "                  book build with warnings as errors (reusing nbval's execution), site test,"
	@echo "                  the notebooks in JupyterLab (headless Chromium), and the PDF edition when TeX is"
	@echo "                  installed (always under CI)"
	@echo "  make test-pythons  unit tests and strict nbval under the oldest and newest other supported Python"
	@echo "                  found on this machine (each in its own .venv-3.X); .ci/run runs it after make test"
	@echo "  make nbval-matrix  strict nbval under OPENBLAS_CORETYPE x OPENBLAS_NUM_THREADS (x86-64)"
	@echo "  make execute    re-run every notebook in place, refreshing its stored outputs"
	@echo "  make lab        open the notebooks in JupyterLab (extra arguments: LAB_ARGS=\"--port 8899\")"
	@echo "  make lab-student  open the student copies (student/) in JupyterLab"
	@echo "  make lab-pages  rewrite the JupyterLab reading of the bibliography and API pages (tools/lab_pages.py)"
	@echo "  make data       regenerate data/ (installs data/requirements.txt)"
	@echo "  make language-model  retrain chapter 10's model of Persuasion (minutes) and record its checksum"
	@echo "  make language-model-eval  score the shipped chapter 10 model on the validation text, token by token (seconds)"
	@echo "  make cnn-comparison  retrain chapter 5's CNN, CNN with batch norm and ResNet from 5 seeds (minutes)"
	@echo "  make batchnorm-grid  retrain chapter 5's learning-rate grid, with and without batch norm (seconds)"
	@echo "  make generative-comparison  retrain chapter 9's GANs, VAE and diffusion model on the ring from 10 seeds (minutes)"
	@echo "  make seq2seq-comparison  retrain chapter 7's recurrent and transformer encoder-decoders from 10 seeds (about 10 minutes)"
	@echo "  make bench      measure notebooks, builds and kernels; print the table, write book/performance.md"
	@echo "  make student    copies of the notebooks without the exercise solutions, in student/;"
	@echo "                  copies you changed are kept (REFRESH=1 replaces them, saving yours first)"
	@echo "  make lock       re-resolve requirements.txt from requirements.in for every supported Python"
	@echo "                  (UPGRADE=1: newest versions; otherwise the current pins are kept where possible)"
	@echo "  make clean      remove _build/"
	@echo "  make distclean  remove _build/, $(VENV) and the other Pythons' .venv-3.X"

# --- environment --------------------------------------------------------------

# Created once: a fresh venv with an up-to-date pip, from a supported interpreter.
$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(not ((3, 11, 5) <= sys.version_info[:3] < (3, 14)))' 2>/dev/null || { \
		echo "error: the book supports Python 3.11 (3.11.5 or later), 3.12 and 3.13;" \
		     "PYTHON=$(PYTHON) is $$(command -v $(PYTHON) >/dev/null && $(PYTHON) --version 2>&1 || echo 'not found')." \
		     "Choose a supported one by name or path, e.g. make $(or $(MAKECMDGOALS),book) PYTHON=python3.12" >&2; \
		exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

# Re-run pip only when the requirements or the package metadata change.
$(STAMP): requirements.txt pyproject.toml | $(PY)
	$(PY) -m pip install -r requirements.txt
	touch $@

# The book's own JupyterLab extension (tools/lab_extension/: figure numbers and captions, links that land on their
# target), plain JavaScript that JupyterLab loads from the venv's labextensions folder; copied there, nothing built.
LAB_EXTENSION = $(VENV)/share/jupyter/labextensions/mlfs-lab
$(LAB_EXTENSION)/package.json: tools/lab_extension/package.json tools/lab_extension/static/remoteEntry.js | $(STAMP)
	rm -rf $(LAB_EXTENSION)
	mkdir -p $(dir $(LAB_EXTENSION))
	cp -R tools/lab_extension $(LAB_EXTENSION)
	touch $@

# axe-core, the accessibility engine of the site test and tools/a11y_audit.py (tests/site/a11y.py): the exact version
# pinned in tests/site/package.json, checked against the integrity hash in tests/site/package-lock.json, installed by
# npm from the registry into the venv, so that no test fetches it. Made again when the pin changes; without npm,
# a one-line note (the site test then stops, saying what is missing).
AXE_CORE = $(VENV)/share/axe-core
$(AXE_CORE)/node_modules/axe-core/axe.min.js: tests/site/package.json tests/site/package-lock.json | $(PY)
	@if command -v npm >/dev/null; then \
		rm -rf $(AXE_CORE) && mkdir -p $(AXE_CORE) && \
		cp tests/site/package.json tests/site/package-lock.json $(AXE_CORE)/ && \
		echo "npm ci: axe-core into $(AXE_CORE)" && \
		(cd $(AXE_CORE) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) && touch $@; \
	else echo "note: no npm, so the site test's axe-core is not installed: apt-get install npm, then make install"; fi

# The stamp's date cannot tell a venv that drifted from the lock since (a package upgraded by hand, e.g. %pip in a
# notebook; files copied with old dates; a Python replaced by a system upgrade): tools/preflight.py compares every
# installed version with its pin, says in one line what differs, and the lock is installed again.
install: $(STAMP) $(LAB_EXTENSION)/package.json $(AXE_CORE)/node_modules/axe-core/axe.min.js
	@$(PY) tools/preflight.py venv requirements.txt || { $(PY) -m pip install -r requirements.txt && \
		$(PY) tools/preflight.py venv requirements.txt --reinstalled; }

# requirements.txt is one lock for every supported Python: uv's universal resolution of requirements.in, with
# environment markers where a version or platform needs its own pin. Existing pins are kept unless they have
# to change; UPGRADE=1 moves every package to its newest version. Re-run make test (and make test-pythons)
# after a lock change.
UV_VERSION = 0.13.8
lock: | $(PY)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(BIN)/uv pip compile --quiet requirements.in --universal --python-version 3.11.5 --custom-compile-command "make lock" \
		$(if $(UPGRADE),--upgrade) --output-file requirements.txt

# --- notebook execution cache -------------------------------------------------

# jupyter-book caches notebook outputs in _build/.jupyter_cache and re-runs a
# notebook only when its own code cells change. The notebooks also depend on
# implementations/ and data/, so hash every file there (paths and contents);
# when the hash differs from the one stored in _build/.code-hash, drop the
# cache and the built pages so that every notebook runs again and no figure
# older than the code survives.
CODE_HASH = find implementations data -type f -not -path '*/__pycache__/*' -not -name '*.pyc' -print0 2>/dev/null \
	| LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -d' ' -f1

# Before that, tools/preflight.py stops with one line per data file that no longer matches data/SHA256SUMS (edited by
# hand: the notebooks' loaders would refuse it in the middle of the build), and clears an execution cache that cannot
# be read (a build interrupted while writing it, a full disk), saying so in one line, so that the notebooks run again
# instead of the build ending in a database traceback.
cache-check: install
	@mkdir -p _build
	@$(PY) tools/preflight.py data data
	@$(PY) tools/preflight.py cache _build/.jupyter_cache --clear _build/.doctrees _build/html _build/jupyter_execute
	@new=$$($(CODE_HASH)); old=$$(cat _build/.code-hash 2>/dev/null || true); \
	if [ "$$new" != "$$old" ]; then \
		echo "implementations/ or data/ changed: clearing the notebook cache and built pages"; \
		rm -rf _build/.jupyter_cache _build/.doctrees _build/html _build/jupyter_execute; \
		echo "$$new" > _build/.code-hash; \
	fi

# --- book -----------------------------------------------------------------------

book: cache-check
	$(BOOK_ENV) $(JB) build .
	@echo "Book: $(CURDIR)/_build/html/index.html"

# --- PDF ------------------------------------------------------------------------

# The PDF edition: the same pages and the same execution cache as the HTML book, through Sphinx's LaTeX builder
# (shaped into a book by book/_ext/pdf_edition.py) and XeLaTeX. Only notebooks without a fresh cache entry run.
# The TeX it needs: the Debian packages of tools/tex-packages.txt.
PDF = _build/latex/machine-learning-from-scratch.pdf
TEX_PACKAGES = $(shell grep -v '^\#' tools/tex-packages.txt 2>/dev/null)
# XeLaTeX stops at the first error instead of waiting for input; latexmk's xelatex mode converts to PDF once, after
# the last pass, instead of after every pass (half the time: the figures are embedded once).
export LATEXOPTS = -interaction=nonstopmode -halt-on-error
export LATEXMKOPTS = -xelatex
PDF_FLAGS ?=

pdf: cache-check
	@command -v xelatex >/dev/null && command -v latexmk >/dev/null || { \
		echo "error: make pdf needs XeLaTeX and latexmk. On Debian or Ubuntu:" >&2; \
		echo "  sudo apt-get install --no-install-recommends $(TEX_PACKAGES)" >&2; exit 1; }
	$(BOOK_ENV) $(JB) build . --builder pdflatex $(PDF_FLAGS)
	@echo "PDF: $(CURDIR)/$(PDF)"

# --- tests ----------------------------------------------------------------------

# Every notebook is executed once per numerical environment: tools/run_nbval.py runs strict nbval natively and
# in a foreign environment (another OpenBLAS kernel and thread count, NumPy's baseline SIMD) in parallel, and
# the native run stores each executed notebook in the execution cache. The -W book build then finds them there
# and executes nothing; what it shows is what nbval just ran (cache-check has already dropped any cache entry
# older than implementations/ and data/). The native run, the faster of the two, also runs every cell tagged rerun
# (each cell that trains) a second time and compares that run with the stored outputs too.
# Each stage is timed (tools/stage_times.py); the times are printed at the end, or when a stage fails.
STAGES = _build/.test-stages
TIMED = $(PY) tools/stage_times.py $(STAGES)
test: cache-check
	@$(TIMED) --start
	$(TIMED) ruff -- $(BIN)/ruff check implementations tests notebooks data bench tools book/_ext
	MPLBACKEND=Agg $(TIMED) "unit tests" -- \
		$(BIN)/pytest -p no:cacheprovider tests --ignore=tests/site --ignore=tests/lab --ignore=tests/pdf
	$(TIMED) "strict nbval, native and foreign" -- $(PY) tools/run_nbval.py --record-cache _build/.jupyter_cache notebooks
	$(BOOK_ENV) $(TIMED) "book build (-W)" -- $(JB) build . -W -n --keep-going --all
	$(TIMED) "site and JupyterLab tests" -- $(BIN)/pytest -p no:cacheprovider tests/site tests/lab
	@ci=$$(echo "$${CI:-}" | tr A-Z a-z); \
	if command -v xelatex >/dev/null || { [ -n "$$ci" ] && [ "$$ci" != 0 ] && [ "$$ci" != false ] && [ "$$ci" != no ]; }; then \
		$(TIMED) "PDF edition" -- $(MAKE) --no-print-directory pdf PDF_FLAGS="-W -n --keep-going" && \
		$(TIMED) "PDF test" -- $(BIN)/pytest -p no:cacheprovider tests/pdf; \
	else echo "PDF edition not tested: no XeLaTeX here (tools/tex-packages.txt lists the packages)"; fi
	@$(TIMED) --report

# The unit tests and strict nbval under the oldest and the newest supported Python on this machine other than the
# venv's own, each in its own venv (.venv-3.X); a missing version is reported in one line (tools/test_pythons.py).
test-pythons: install
	$(PY) tools/test_pythons.py

# The portability check of the stored outputs, beyond the one foreign environment of `make test`.
nbval-matrix: install
	$(PY) tools/run_nbval.py --matrix notebooks

# JupyterLab refuses to start as root (containers, CI machines) unless told to.
LAB_ROOT = $(if $(filter 0,$(shell id -u)),--allow-root)

# --- notebooks ------------------------------------------------------------------

execute: install
	@$(PY) tools/preflight.py data data
	$(NB_ENV) $(PY) tools/execute_notebooks.py notebooks/*.ipynb

# Extra JupyterLab options: make lab LAB_ARGS="--port 8899 --no-browser"
LAB_ARGS ?=

# JupyterLab serves the whole repository and opens on the notebooks' folder: the notebooks' links to the book's
# pages (../book/notation.md, the bibliography, the data sets) point outside notebooks/ and student/, and a server
# rooted in one of those folders could not open them.
LAB_SERVE = --ServerApp.root_dir="$(CURDIR)" --LabApp.default_url=/lab/tree/$(1)

lab: install
	$(NB_ENV) $(BIN)/jupyter lab $(LAB_ROOT) $(call LAB_SERVE,notebooks) $(LAB_ARGS)

lab-student: student
	$(NB_ENV) $(BIN)/jupyter lab $(LAB_ROOT) $(call LAB_SERVE,student) $(LAB_ARGS)

# --- data -----------------------------------------------------------------------

data: install
	$(PY) -m pip install -r data/requirements.txt
	$(PY) data/make_data.py

# Chapter 7 loads this trained state instead of training for minutes; the script updates data/SHA256SUMS.
language-model: install
	$(NB_ENV) $(PY) tools/train_language_model.py

# Chapter 7 loads the shipped model's losses on the validation text, token by token (seconds; no training).
language-model-eval: install
	$(NB_ENV) $(PY) tools/evaluate_language_model.py

# Chapter 5 loads this comparison of three networks over five seeds; the script updates data/SHA256SUMS.
cnn-comparison: install
	$(NB_ENV) $(PY) tools/train_cnn_comparison.py

batchnorm-grid: install
	$(NB_ENV) $(PY) tools/train_batchnorm_grid.py

# Chapter 9 loads these scores of its models on the ring, 10 seeds at equal budgets, and its trained VAE and
# denoiser; the script updates data/SHA256SUMS.
generative-comparison: install
	$(NB_ENV) $(PY) tools/train_generative_comparison.py
# Chapter 7 loads this comparison of three encoder-decoders over ten seeds; the script updates data/SHA256SUMS.
seq2seq-comparison: install
	$(NB_ENV) $(PY) tools/train_seq2seq_comparison.py

# --- student copies -----------------------------------------------------------

# Student copies in student/ (git-ignored, untouched by make clean); a copy the student changed is never
# overwritten unless REFRESH=1, which saves it in student/backup/ first.
# The bibliography and the API reference as JupyterLab shows them (tools/lab_pages.py): after a change to
# book/references.bib or to the package's public names and docstrings.
lab-pages: install
	$(PY) tools/lab_pages.py

student: install
	$(PY) tools/make_student.py $(if $(REFRESH),--refresh) notebooks student

# --- benchmarks -----------------------------------------------------------------

# Timings are measured here and reported, never asserted in tests.
bench: install
	$(PY) bench/bench_book.py --page book/performance.md

# --- cleaning -------------------------------------------------------------------

clean:
	rm -rf _build

distclean: clean
	rm -rf $(VENV) .venv-3.*
