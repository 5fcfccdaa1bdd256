# Scale by the Numbers: everything a newcomer runs goes through this file.
# Each target creates .venv and installs the locked dependencies first, so a
# fresh machine needs only Python 3.11+, make and git.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# The stamp is rebuilt whenever the requirements or their lock change.
STAMP := $(VENV)/.installed
# The one pip every venv of ours installs (deploy.yml publishes the build it makes).
PIP_PIN := pip==26.3
# Material 9.7+ prints, on every build, that it reaches end of life on May 5, 2027,
# with Zensical as its successor. That is about this site, and `make zensical`
# (tests/zensical/) answers it, in CI; repeated on every save of `make serve`, it
# would only teach an author to ignore what the terminal says.
export NO_MKDOCS_2_WARNING := 1
# The Node packages (package.json, locked in package-lock.json): Lighthouse for `make audit`, the
# JavaScript and CSS tools for `make lint`. Rebuilt whenever either file changes.
NODE_STAMP := node_modules/.installed

.PHONY: serve build preview test lint github audit bench lock lesson kinds clean engine zensical

$(STAMP): requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet $(PIP_PIN)
	$(BIN)/python -m pip install --quiet -r requirements.txt -c constraints.txt
	$(BIN)/python -m pip install --quiet --no-deps --editable .
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## serve: live-reloading preview on http://127.0.0.1:8000/course/ (the path of site_url)
# --livereload is explicit: recent click releases turn it off otherwise. Not strict, so
# that a problem shows in the open page as well as in the terminal; `make build` is strict.
serve: $(STAMP)
	$(BIN)/mkdocs serve --no-strict --livereload --dev-addr 127.0.0.1:8000

## build: strict build of the site into site/
build: $(STAMP)
	$(BIN)/mkdocs build --strict

## preview: the built site as its host serves it, on http://127.0.0.1:8001/course/
# Gzipped, with the 404 page and Material's instant navigation, as readers get it;
# `make serve` is for writing (live reload), this is for looking at what ships.
preview: build
	$(BIN)/python -m tools.serve site --port 8001

## test: lint, .github checks, strict build, every test
test: $(STAMP) lint github
	$(BIN)/mkdocs build --strict
	$(BIN)/python -m pytest

## lint: ruff and mypy over the Python; ESLint, Stylelint, Prettier and tsc over the scripts and styles
# The Node tools are npm's, pinned in package.json and package-lock.json and installed by npm ci once
# (NODE_STAMP). Their caches live in node_modules/.cache, so a second run reads only what changed.
NODE_BIN := node_modules/.bin
NODE_CACHE := node_modules/.cache
lint: $(STAMP) $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(NODE_BIN)/eslint --max-warnings 0 --cache --cache-location $(NODE_CACHE)/eslint/ docs/assets/javascripts *.mjs
	$(NODE_BIN)/stylelint --max-warnings 0 --cache --cache-location $(NODE_CACHE)/stylelint/ "docs/assets/stylesheets/*.css"
	$(NODE_BIN)/prettier --check --log-level warn --cache --cache-strategy content \
		"docs/assets/**/*.{js,css}" *.mjs types/*.d.ts tsconfig.json .prettierrc.json
	$(NODE_BIN)/tsc --project tsconfig.json

## github: workflows, Dependabot and issue forms against GitHub's schemas; zizmor's audit
# The schemas ship inside check-jsonschema and zizmor runs --offline: no network needed.
ISSUE_FORMS := $(filter-out %/config.yml,$(wildcard .github/ISSUE_TEMPLATE/*.yml))
github: $(STAMP)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.dependabot .github/dependabot.yml
	$(BIN)/check-jsonschema --builtin-schema vendor.github-issue-forms $(ISSUE_FORMS)
	$(BIN)/check-jsonschema --builtin-schema vendor.github-issue-config .github/ISSUE_TEMPLATE/config.yml
	$(BIN)/zizmor --offline --strict-collection --quiet .

## audit: every page against its budgets in Lighthouse (tools/budgets.yml)
# Lighthouse comes from npm, like the linters (NODE_STAMP), and drives Debian's
# Chromium (CHROME_PATH); it downloads no browser. About 5 min.
audit: $(STAMP) $(NODE_STAMP)
	$(BIN)/mkdocs build --strict
	$(BIN)/python -m tools.audit site

## kinds: rewrite FIGURE_KINDS.md, the authors' list of figure kinds, from the registry
kinds: $(STAMP)
	$(BIN)/python -m tools.figure_kinds

## lesson: the skeleton of a new lesson, listed in the nav
# make lesson NUMBER=14 STAGE=6 MISSION=5 TITLE="Sequence parallelism" PREREQUISITES="11"
# Each value reaches the tool as typed: make does not expand it ($(value ...)), and the shell reads it from
# the environment inside double quotes, so a $, a backquote or a quote in a title is only a character.
LESSON_FIELDS := NUMBER STAGE MISSION TITLE PREREQUISITES
# Nor exported as they are: make expands a variable it exports, running a $(shell ...) in it.
unexport $(LESSON_FIELDS)
$(foreach field,$(LESSON_FIELDS),$(eval lesson: export SBN_LESSON_$(field) = $$(value $(field))))
lesson: $(STAMP)
	$(BIN)/python -m tools.new_lesson --prerequisites "$$SBN_LESSON_PREREQUISITES" -- \
		"$$SBN_LESSON_NUMBER" "$$SBN_LESSON_STAGE" "$$SBN_LESSON_MISSION" "$$SBN_LESSON_TITLE"

## bench: median time of several full builds
bench: $(STAMP)
	$(BIN)/python -m tests.benchmark

## engine: the engine tier (tests/engine/) in its own venv, .venv-engine
# PyTorch, transformers and DeepSpeed (requirements-engine.txt, about 5.7 GB with
# torch's CUDA libraries), run on the CPU over gloo; `make test` never needs them.
# ENGINE_WRITE=1 rewrites catalog/measured.yml from what the tier measured.
# A tier's venv of its own ($(1)): the course's locked packages, and the tier's requirements file ($(2))
# under the same constraints, so that what both need keeps the version `make test` runs with.
define tier_venv
	$(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet $(PIP_PIN)
	$(1)/bin/python -m pip install --quiet -r requirements.txt -r $(2) -c constraints.txt
	$(1)/bin/python -m pip install --quiet --no-deps --editable .
	touch $@
endef

ENGINE_VENV := .venv-engine
ENGINE_BIN := $(ENGINE_VENV)/bin
ENGINE_STAMP := $(ENGINE_VENV)/.installed
$(ENGINE_STAMP): requirements.txt constraints.txt requirements-engine.txt pyproject.toml
	$(call tier_venv,$(ENGINE_VENV),requirements-engine.txt)

# addopts is emptied: the course's own (xdist over every core, doctests of macros/, and
# --ignore=tests/engine) are for `make test`; the tier spawns its own ranks.
engine: $(ENGINE_STAMP)
	DS_ACCELERATOR=cpu $(ENGINE_BIN)/python -m pytest tests/engine -o addopts="" -ra --strict-markers -p no:cacheprovider

## zensical: the course's sources built by Zensical, Material's successor, and what it lacks (tests/zensical/)
ZENSICAL_VENV := .venv-zensical
ZENSICAL_BIN := $(ZENSICAL_VENV)/bin
ZENSICAL_STAMP := $(ZENSICAL_VENV)/.installed
$(ZENSICAL_STAMP): requirements.txt constraints.txt requirements-zensical.txt pyproject.toml
	$(call tier_venv,$(ZENSICAL_VENV),requirements-zensical.txt)

zensical: $(ZENSICAL_STAMP)
	$(ZENSICAL_BIN)/python -m pytest tests/zensical -o addopts="" -ra --strict-markers -p no:cacheprovider

## lock: re-resolve requirements.txt and rewrite constraints.txt
lock:
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip freeze --exclude-editable > constraints.txt
	$(BIN)/python -m pip install --quiet --no-deps --editable .
	touch $(STAMP)

clean:
	rm -rf $(VENV) $(ENGINE_VENV) $(ZENSICAL_VENV) site .pytest_cache node_modules
