#!/usr/bin/env bash
# The course's start script (a copy made by `python -m ftd_lib release`):
#   ./start.sh setup   once: makes .venv/ with the pinned requirements and ftd_lib (needs the network)
#   ./start.sh         opens JupyterLab on notebook 01 (runs the set-up first if .venv/ is missing);
#                      any further arguments go to `jupyter lab` (e.g. ./start.sh --no-browser)
# PYTHON=/path/to/python3.11 picks the Python (3.11 or newer; default: python3).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=.venv
FIRST=notebooks/01_td_basics.ipynb

setup() {
    if ! command -v "$PY" >/dev/null 2>&1; then
        echo "start.sh: no '$PY' on the PATH: install Python 3.11 or newer (or set PYTHON=...)" >&2
        exit 1
    fi
    if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "start.sh: ftd_lib needs Python 3.11 or newer, '$PY' is $("$PY" --version 2>&1);" \
             "set PYTHON=/path/to/python3.11" >&2
        exit 1
    fi
    echo "start.sh: making $VENV/ and installing the pinned requirements (a few minutes) ..."
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install --quiet -r requirements.txt
    "$VENV/bin/python" -m pip install --quiet --no-deps -e .
    "$VENV/bin/python" -c "import ftd_lib, torch; print('start.sh: ready: ftd_lib', \
ftd_lib.__file__.rsplit('/', 2)[0], '| torch', torch.__version__)"
}

case "${1:-}" in
    setup)
        setup
        echo "start.sh: set up. Open the course with: ./start.sh"
        ;;
    -h|--help)
        sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
        ;;
    *)
        [ -x "$VENV/bin/jupyter" ] || setup
        exec "$VENV/bin/jupyter" lab "$@" "$FIRST"
        ;;
esac
