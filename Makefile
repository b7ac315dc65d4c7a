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

SUBMISSIONS ?= submitted
# Everything `grade` writes goes into grades/ (student data: .gitignore keeps it out of git).
GRADES      ?= grades/grades.csv
# `make grade` also writes the scores into the course's nbgrader gradebook once `make release`
# has made one (GRADEBOOK= turns that off; GRADEBOOK=/path/to/course points elsewhere).
GRADEBOOK   ?= $(if $(wildcard gradebook.db),.)

.PHONY: help install sandbox-tool lab lab-instructor progress test test-fast release grade gradescope bench doctor lint format clean

help:
	@grep -E '^# ' Makefile | head -3 | sed 's/^# //'
	@echo "Other targets: progress lab-instructor release grade gradescope bench doctor lint format clean"

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

# As root (containers, cloud boxes) Jupyter refuses to start without --allow-root.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root)
LAB := $(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(AS_ROOT)
# The warm grader starts first (autograder/service/): it loads torch while the lab opens, so the
# first check() of the first lesson answers at once.
lab: install
	-$(PY) -m autograder.service start
	$(LAB) --ServerApp.default_url=/lab/tree/00_setup/00_setup.ipynb

# The same lab with nbgrader's instructor tools (Create Assignment, Validate, formgrader), opened
# on formgrader at the repo root: formgrader works only where the course folder (this one, with
# nbgrader_config.py and gradebook.db) is inside the server's root.
lab-instructor: install
	JUPYTER_CONFIG_PATH=$(abspath jupyter/instructor) $(BIN)/jupyter lab \
	  --ServerApp.root_dir=$(CURDIR) $(AS_ROOT) --ServerApp.default_url=/formgrader

# Which exercises and questions of your notebooks pass, lesson by lesson (read-only).
progress: install
	$(PY) -m autograder progress notebooks

# --dist loadgroup: the gates that read one lesson's notebook run (tests/lesson_runs.py: the
# notebook and browser gates) share one xdist group, so that each notebook is executed once.
test: install
	$(PY) -m pytest -n 2 --dist loadgroup

test-fast: install
	$(PY) -m pytest -n 2 --dist loadgroup -m "not slow"

# Rebuild notebooks/ from solutions/, then make the repo root an nbgrader course: the assignments
# in its gradebook.db, the learners' versions in release/ (nothing goes to nbgrader's exchange).
release: install
	$(PY) scripts/release.py --course

grade: install
	$(PY) -m autograder grade $(SUBMISSIONS) --out $(GRADES) $(if $(GRADEBOOK),--gradebook $(GRADEBOOK)) $(GRADE_OPTIONS)

# Gradescope's autograder.zip for one assignment: make gradescope ASSIGNMENT=04_softmax_masks
# (-> grades/gradescope/ASSIGNMENT/autograder.zip; see scripts/gradescope.py).
gradescope:
	@test -n "$(ASSIGNMENT)" || { echo "usage: make gradescope ASSIGNMENT=04_softmax_masks"; exit 2; }
	$(PYTHON) scripts/gradescope.py $(ASSIGNMENT)

# Interview practice: `make drill` says what to practise next; any verb works, e.g.
#   make drill DRILL="start sdpa-mask"   make drill DRILL="check drill_sdpa-mask.py"
DRILL ?= next
.PHONY: drill
drill: install
	DRILL_FROM="$(PWD)" $(PY) -m autograder drill $(DRILL)

bench: install
	$(PY) bench/bench_reference.py
	$(PY) bench/bench_grader.py
	$(PY) bench/bench_startup.py
	$(PY) bench/bench_lesson08.py
	$(PY) bench/bench_service.py

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
