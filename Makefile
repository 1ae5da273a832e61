# The single entry point: the README's two commands and .ci/run call these targets.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
APT_PACKAGES := openssh-server openssh-client systemd-container systemd-journal-remote mmdebstrap debootstrap podman runc zsh fish

.PHONY: demo dev test lint system-deps rules corpus bench fuzz clean

$(BIN)/crashdoc: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $@

## demo: install crashdoc and diagnose the founding case shipped in examples/
demo: $(BIN)/crashdoc
	$(BIN)/crashdoc diagnose examples/founding-case.log
	@echo
	@echo "crashdoc is installed in $(VENV): run it as $(BIN)/crashdoc, or put it on your PATH:"
	@echo "  pipx install .                      # its own environment, crashdoc on PATH"
	@echo "  export PATH=\"$(CURDIR)/$(BIN):\$$PATH\"   # or this, in ~/.bashrc"
	@echo "Tab completion: eval \"\$$(crashdoc completion bash)\"  (zsh: the same; fish: crashdoc completion fish | source)"

dev: $(BIN)/crashdoc

## system-deps: what the real-component tests need (sshd, systemd-nspawn, systemd-journal-remote, mmdebstrap)
system-deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi

rules: $(BIN)/crashdoc
	$(BIN)/crashdoc rules validate
	$(BIN)/crashdoc rules test

corpus: $(BIN)/crashdoc
	$(BIN)/crashdoc eval ../shared/corpus/dev

## lint: ruff, and mypy (strict on the model and the interfaces between stages)
lint: $(BIN)/crashdoc
	$(BIN)/ruff check src tests bench tools
	$(BIN)/mypy

## test: everything the tests need, then lint and the whole suite (rules, corpus score, real sshd/systemd/journal tests)
test: system-deps $(BIN)/crashdoc lint
	$(BIN)/crashdoc rules validate
	$(BIN)/crashdoc rules test
	$(BIN)/python -m pytest -q -p no:cacheprovider

## bench: issue 12's matrix (every log shape at BENCH_SIZES against grep, the journal file against journalctl),
## then long and many error lines, and start-up; each prints its table and the floors (bench/README.md)
BENCH_SIZES ?= 100M
bench: $(BIN)/crashdoc
	$(BIN)/python bench/matrix.py --sizes $(BENCH_SIZES)
	$(BIN)/python bench/bench_lines.py
	$(BIN)/python bench/bench_startup.py --warm-only

## fuzz: 100,000 hostile inputs through diagnose and every renderer (make test runs a fixed-seed 600), then the
## growth check (time on doubled inputs); failing inputs land in tests/fuzz/regressions/
## (in processes of FUZZ_CHUNK inputs each: hypothesis's record of what it generated grows with every input and
## took 24 GB in one process of 100,000; FUZZ_JOBS processes at a time)
FUZZ_EXAMPLES ?= 100000
FUZZ_CHUNK ?= 10000
FUZZ_JOBS ?= 2
fuzz: $(BIN)/crashdoc
	seq 1 $$(( ($(FUZZ_EXAMPLES) + $(FUZZ_CHUNK) - 1) / $(FUZZ_CHUNK) )) | xargs -P $(FUZZ_JOBS) -I{} \
	  env CRASHDOC_FUZZ_EXAMPLES=$(FUZZ_CHUNK) $(BIN)/python -m pytest -q -p no:cacheprovider --timeout=0 \
	  tests/fuzz/test_fuzz.py
	$(BIN)/python bench/bench_growth.py

clean:
	rm -rf $(VENV) build *.egg-info
