# The two commands of the README: `make plan` (the main job) and `make check` (every check).
# Each creates the virtual environment it needs when it is absent or older than pyproject.toml or uv.lock.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STACK  ?= dev
STACKS := $(patsubst stacks/Pulumi.%.yaml,%,$(wildcard stacks/Pulumi.*.yaml))

.PHONY: plan check lint test plan-all architecture promtool lock

plan: $(VENV)/.installed
	$(BIN)/gpucloud plan $(STACK)

# The three parts run side by side (each a CPU-bound process: mypy, pytest on every core, the plans), each
# target's output printed whole when it ends; the environment and promtool come first.
check: $(VENV)/.installed promtool
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint test plan-all

lint: $(VENV)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/mypy bootstrap

test: $(VENV)/.installed promtool
	$(BIN)/pytest

# The alert rule tests run `promtool test rules` (Debian package prometheus). Installed here when missing, as
# root with apt-get (CI's case); anywhere else those tests skip and say why.
promtool:
	@command -v promtool >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing promtool (Debian package prometheus)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
				prometheus >/dev/null; \
		else \
			echo "promtool not found and not installable here (needs root and apt-get): the alert rule tests skip"; \
		fi; \
	}

# Every environment must plan with no mandatory policy violation (exit status 0), with the pack config the deploy
# runner's builds use (stacks/policy-config.json: the deployer roles, the only cluster administrators).
plan-all: $(VENV)/.installed
	@set -e; for stack in $(STACKS); do \
		echo "gpucloud plan $$stack --policy-config stacks/policy-config.json"; \
		out=$$($(BIN)/gpucloud plan $$stack --policy-config stacks/policy-config.json 2>&1) || { echo "$$out"; exit 1; }; \
	done
	@echo "gpucloud plan shared --dir bootstrap"
	@out=$$($(BIN)/gpucloud plan shared --dir bootstrap 2>&1) || { echo "$$out"; exit 1; }
	@echo "gpucloud plan shared-cn --dir bootstrap"
	@out=$$($(BIN)/gpucloud plan shared-cn --dir bootstrap 2>&1) || { echo "$$out"; exit 1; }

# The architecture picture of the README: the prod environment's resource graph, rendered with Graphviz.
architecture: $(VENV)/.installed
	$(BIN)/gpucloud plan prod --no-policy --graph docs/architecture-prod.dot > /dev/null
	dot -Tsvg docs/architecture-prod.dot -o docs/architecture-prod.svg
	rm docs/architecture-prod.dot

# One toolchain, as Pulumi.yaml declares it: uv installs the project (editable) and its dev group into .venv
# from the committed uv.lock, with the command `pulumi install` runs (`uv sync`), so that changes nothing
# afterwards. A dependency added to pyproject.toml updates uv.lock here (commit it). uv itself comes from
# PyPI into .venv (its version is the dev group's pin) when it is not there yet.
# Bytecode is compiled at install, for the installed packages (`--compile-bytecode`: "By default, uv does not
# compile Python (.py) files to bytecode ... compilation is performed lazily the first time a module is
# imported", https://docs.rs/uv-cli/latest/uv_cli/, read 2026-12-03) and for the project's own modules: where
# PYTHONDONTWRITEBYTECODE is set, as in CI, every process would otherwise compile again each module it imports,
# (bench/README.md has the figures).
UV_VERSION := $(shell sed -n 's/^ *"uv==\([0-9.]*\)",$$/\1/p' pyproject.toml)
UV_ENV     := UV_PROJECT_ENVIRONMENT=$(CURDIR)/$(VENV) UV_PYTHON_DOWNLOADS=never

$(VENV)/.installed: pyproject.toml uv.lock
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "gpu-cloud needs Python 3.11 or newer ($(PYTHON) is older); run: make PYTHON=python3.11 ..."; exit 1; }
	@test -x $(BIN)/uv || { $(PYTHON) -m venv $(VENV) && \
		$(BIN)/pip install --quiet --disable-pip-version-check uv==$(UV_VERSION); }
	$(UV_ENV) $(BIN)/uv sync --quiet --compile-bytecode
	$(BIN)/python -m compileall -q -j 0 gpu_cloud stacks bootstrap tests >/dev/null
	touch $@

# After a change of the dependencies in pyproject.toml: the lock file and the pack's pinned requirements.
lock: $(VENV)/.installed
	$(UV_ENV) $(BIN)/uv lock
	$(UV_ENV) $(BIN)/uv export --frozen --only-group policy-pack --no-emit-project --no-hashes \
		-o gpu_cloud/policies/requirements.txt
