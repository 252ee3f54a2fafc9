# Sourced by course.sh and test.sh: make (or reuse) .venv with the pinned requirements and
# ftd_lib installed in editable mode, then activate it. Needs only Python 3.11 on the PATH.
# Safe to source from an interactive shell too (`. scripts/setup_env.sh`): sets no shell options.
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
stamp=.venv/.ftd_requirements.sha
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  python -m pip install -q --upgrade pip
  python -m pip install -q -r requirements.txt
  python -m pip install -q --no-deps -e .
  echo "$want" > "$stamp"
fi
