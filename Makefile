# Every routine task of the course. The first two are all a newcomer needs:
#   make lab    set everything up (first time: a couple of minutes) and open the course
#   make test   set everything up and run the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
# nbgrader shells out to alembic, which lives in the venv: keep its bin first on PATH.
export PATH := $(abspath $(BIN)):$(PATH)
# Plots render off-screen in tests, grading and benchmarks.
export MPLBACKEND ?= Agg

# The course's language: en, or zh-CN for the Simplified Chinese edition (中文版, zh-CN/), which
# is its own course folder (zh-CN/notebooks, zh-CN/submitted, zh-CN/gradebook.db...).
# `make lab LANG=zh-CN` opens it; so does a Chinese locale (LANG=zh_CN.UTF-8). COURSE_LANG=en
# keeps the English course whatever the locale.
COURSE_LANG ?= $(if $(filter zh%,$(LANG)),zh-CN,en)
EDITION     := $(if $(filter zh-CN,$(COURSE_LANG)),zh-CN/)
# The locale the lab, its kernels and the grader run in (gettext picks their language from it).
LAB_LOCALE  := $(if $(EDITION),LANG=zh_CN.UTF-8)

SUBMISSIONS ?= $(EDITION)submitted
# Everything `grade` writes goes into grades/ (student data: .gitignore keeps it out of git).
GRADES      ?= $(EDITION)grades/grades.csv
# `make grade` also writes the scores into the course's nbgrader gradebook once `make release`
# has made one (GRADEBOOK= turns that off; GRADEBOOK=/path/to/course points elsewhere).
GRADEBOOK   ?= $(if $(wildcard $(EDITION)gradebook.db),$(or $(EDITION),.))

.PHONY: help install sandbox-tool cjk-font lab lab-instructor progress test test-fast release grade gradescope bench doctor lint format clean

help:
	@grep -E '^# ' Makefile | head -3 | sed 's/^# //'
	@echo "Other targets: progress lab-instructor release grade gradescope bench doctor lint format clean cjk-font"
	@echo "The Chinese edition (中文版): make lab LANG=zh-CN (see README.zh-CN.md)"

# The venv, with the pinned packages, the course's own packages, the kernel and the widgets
# (ipywidgets 8 ships its JupyterLab extension as a package: installing it registers it).
$(BIN)/.installed: requirements.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (Attention from Scratch)" >/dev/null
	touch $@

install: $(BIN)/.installed sandbox-tool

# The grader's messages in other languages (autograder/locale/README.md): `make install` compiles
# each language's catalog; `make i18n` extracts the marked texts (and every Mistake's title and
# hint) into the template and merges it into each language's .po, for a translator to fill in.
LOCALES := autograder/locale
PO_FILES := $(wildcard $(LOCALES)/*/LC_MESSAGES/autograder.po)
MO_FILES := $(PO_FILES:.po=.mo)
$(LOCALES)/%/LC_MESSAGES/autograder.mo: $(LOCALES)/%/LC_MESSAGES/autograder.po $(BIN)/.installed
	$(BIN)/pybabel compile --statistics -i $< -o $@
install: $(MO_FILES)

.PHONY: i18n
i18n: $(BIN)/.installed
	$(BIN)/pybabel extract -F babel.cfg --no-location --add-comments=TRANSLATORS: -w 100 \
	  --project="Attention from Scratch" --copyright-holder="Attention from Scratch contributors" \
	  -o $(LOCALES)/autograder.pot autograder
	$(BIN)/pybabel update -i $(LOCALES)/autograder.pot -d $(LOCALES) -D autograder -w 100
	@echo "Now translate the new or fuzzy entries of $(PO_FILES), then make install."

# The grader's OS-level sandbox (bubblewrap). Installed where missing when we are root on a
# Debian/Ubuntu machine; otherwise `check` still works (process isolation only, and says so) and
# `grade` refuses until it is installed: ask your administrator for `apt-get install bubblewrap`.
sandbox-tool:
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null) \
	      || echo "note: could not install bubblewrap; grading a class needs it"; \
	  else \
	    echo "note: bubblewrap (bwrap) is not installed; grading a class needs it"; \
	  fi; }

# The learner's lab: JupyterLab's settings overrides (no news prompt, see jupyter/README.md) and
# nbgrader's instructor extensions off (`make lab-instructor` turns them back on).
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
$(LAB_SETTINGS): jupyter/overrides.json $(BIN)/.installed
	$(BIN)/jupyter labextension disable --level=sys_prefix @jupyter/nbgrader >/dev/null
	mkdir -p $(dir $@)
	cp jupyter/overrides.json $@
install: $(LAB_SETTINGS)

# The Chinese lab's settings folder: the same overrides, and JupyterLab's own language pack
# (jupyterlab-language-pack-zh-CN, in requirements.txt) as its interface language.
# `make lab LANG=zh-CN` points JupyterLab at it (--LabApp.app_settings_dir); the English lab
# never reads it.
LAB_SETTINGS_ZH := $(VENV)/share/jupyter/lab/settings-zh-CN/overrides.json
$(LAB_SETTINGS_ZH): jupyter/overrides.json jupyter/zh-CN.json $(BIN)/.installed
	mkdir -p $(dir $@)
	$(PY) -c "import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); \
	  print(json.dumps({**a, **b}, indent=2))" jupyter/overrides.json jupyter/zh-CN.json > $@
install: $(LAB_SETTINGS_ZH)

# A CJK font for the Chinese edition's plot labels (course_lib/fonts.py picks it up). As root on
# Debian/Ubuntu: fonts-wqy-microhei (a 1.6 MB download), then matplotlib's font cache is rebuilt.
# Elsewhere: install any CJK font (Noto Sans CJK SC...) or `pip install mplfonts` (85 MB).
# Without one the Chinese labels show as boxes; nothing else changes.
cjk-font: $(BIN)/.installed
	@$(PY) -c "from course_lib.fonts import cjk_family; raise SystemExit(cjk_family() is None)" || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq && apt-get install -y -qq fonts-wqy-microhei >/dev/null \
	      && $(PY) -c "import matplotlib.font_manager as f; f._load_fontmanager(try_read_cache=False)") \
	      || echo "note: could not install a CJK font; Chinese plot labels will show as boxes"; \
	  else \
	    echo "note: no CJK font: Chinese plot labels show as boxes (see README.zh-CN.md)"; \
	  fi; }

# As root (containers, cloud boxes) Jupyter refuses to start without --allow-root.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB := $(BIN)/jupyter lab --ServerApp.root_dir=$(EDITION)notebooks $(AS_ROOT) \
  $(if $(EDITION),--LabApp.app_settings_dir=$(abspath $(dir $(LAB_SETTINGS_ZH))))
# The warm grader starts first (autograder/service/): it loads torch while the lab opens, so the
# first check() of the first lesson answers at once.
lab: install $(if $(EDITION),cjk-font)
	-$(LAB_LOCALE) $(PY) -m autograder.service start
	$(LAB_LOCALE) $(LAB) --ServerApp.default_url=/lab/tree/00_setup/00_setup.ipynb

# The same lab with nbgrader's instructor tools (Create Assignment, Validate, formgrader), opened
# on formgrader at the repo root: formgrader works only where the course folder (this one, with
# nbgrader_config.py and gradebook.db) is inside the server's root. It reads the config of the
# folder it starts in: the Chinese course's (zh-CN/) with LANG=zh-CN.
lab-instructor: install
	cd $(or $(EDITION),.) && $(LAB_LOCALE) JUPYTER_CONFIG_PATH=$(abspath jupyter/instructor) \
	  $(abspath $(BIN))/jupyter lab --ServerApp.root_dir=$(CURDIR)/$(EDITION) $(AS_ROOT) \
	  $(if $(EDITION),--LabApp.app_settings_dir=$(abspath $(dir $(LAB_SETTINGS_ZH)))) \
	  --ServerApp.default_url=/formgrader

# Which exercises and questions of your notebooks pass, lesson by lesson (read-only).
progress: install
	$(LAB_LOCALE) $(PY) -m autograder progress $(EDITION)notebooks

# --dist loadgroup: the gates that read one lesson's notebook run (tests/lesson_runs.py: the
# notebook and browser gates) share one xdist group, so that each notebook is executed once.
# Three workers on two cores: a fifth of the suite's time is spent waiting (kernels and labs
# starting, sandboxes' idle timeouts, Dask), which a third worker fills.
test: install
	$(PY) -m pytest -n 3 --dist loadgroup

test-fast: install
	$(PY) -m pytest -n 3 --dist loadgroup -m "not slow"

# Rebuild notebooks/ from solutions/, then make the repo root an nbgrader course: the assignments
# in its gradebook.db, the learners' versions in release/ (nothing goes to nbgrader's exchange).
# The Chinese edition likewise: zh-CN/notebooks/ from zh-CN/solutions/, the course zh-CN/.
release: install
	$(PY) scripts/release.py --course

grade: install
	$(LAB_LOCALE) $(PY) -m autograder grade $(SUBMISSIONS) --out $(GRADES) $(if $(GRADEBOOK),--gradebook $(GRADEBOOK)) $(GRADE_OPTIONS)

# Gradescope's autograder.zip for one assignment: make gradescope ASSIGNMENT=04_softmax_masks
# (-> grades/gradescope/ASSIGNMENT/autograder.zip; see scripts/gradescope.py). LANG=zh-CN: the
# Chinese edition's (its notebook, results.json in Chinese; -> zh-CN/grades/gradescope/...).
gradescope:
	@test -n "$(ASSIGNMENT)" || { echo "usage: make gradescope ASSIGNMENT=04_softmax_masks"; exit 2; }
	$(PYTHON) scripts/gradescope.py $(ASSIGNMENT) --lang $(COURSE_LANG)

# Interview practice: `make drill` says what to practise next; any verb works, e.g.
#   make drill DRILL="start sdpa-mask"   make drill DRILL="check drill_sdpa-mask.py"
DRILL ?= next
.PHONY: drill
drill: install
	DRILL_FROM="$(PWD)" $(PY) -m autograder drill $(DRILL)

# Every benchmark runs and prints its figures; make fails at the end if any missed its target.
BENCHES := reference grader startup lesson08 service
bench: install
	@failed=""; for b in $(BENCHES); do \
		$(PY) bench/bench_$$b.py || failed="$$failed $$b"; done; \
	if [ -n "$$failed" ]; then echo "targets missed in:$$failed"; exit 1; fi

doctor: install
	$(PY) -m course_lib.device

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache *.egg-info
