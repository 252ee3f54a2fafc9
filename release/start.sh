#!/usr/bin/env bash
# The course's start script (a copy made by `python -m ftd_lib release`):
#   ./start.sh setup   once: makes .venv/ with the pinned requirements and ftd_lib (needs the network)
#   ./start.sh         opens JupyterLab on notebook 01, rooted at this folder (runs the set-up
#                      first if .venv/ is missing); further arguments go to `jupyter lab`
#                      (e.g. ./start.sh --no-browser); as root it adds --allow-root and says so
# PYTHON=/path/to/python3.11 picks the Python (3.11 or newer; default: python3).
# FTD_TORCH=cpu|default picks torch's build (default: the CPU build on Linux without an NVIDIA
# GPU, from PyTorch's CPU wheel index; pip's default build elsewhere).
set -euo pipefail
SELF=$(basename "$0")
cd "$(dirname "$0")"
PY=${PYTHON:-python3}
VENV=.venv
FIRST=notebooks/01_td_basics.ipynb
CPU_INDEX=https://download.pytorch.org/whl/cpu

usage() {  # the comment block above, without its '#'
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$SELF"
}

torch_build() {  # cpu: Linux with no NVIDIA GPU that nvidia-smi can see; default: elsewhere
    case "${FTD_TORCH:-}" in
        cpu|default) echo "$FTD_TORCH"; return ;;
        "") ;;
        *) echo "start.sh: FTD_TORCH must be cpu or default, got '$FTD_TORCH'" >&2; exit 1 ;;
    esac
    if [ "$(uname -s)" = Linux ] && ! { command -v nvidia-smi >/dev/null 2>&1 &&
            nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then
        echo cpu
    else
        echo default
    fi
}

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
    local build
    build=$(torch_build)
    echo "start.sh: making $VENV/ and installing the pinned requirements (a few minutes) ..."
    "$PY" -m venv "$VENV"
    if [ "$build" = cpu ]; then
        # first the CPU wheel of the pinned version alone, from PyTorch's CPU index (only torch is
        # looked up there); the requirements then find torch installed and keep it
        local torch
        torch=$(sed -n 's/^torch==\([^ #+]*\).*/\1/p' requirements.txt)
        echo "start.sh: no NVIDIA GPU (Linux): torch's CPU build (FTD_TORCH=default to change)"
        "$VENV/bin/python" -m pip install --quiet --no-deps --extra-index-url "$CPU_INDEX" \
            "torch==$torch+cpu"
    fi
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
        usage
        ;;
    *)
        [ -x "$VENV/bin/jupyter" ] || setup
        extra=()
        if [ "$(id -u)" = 0 ] && [[ " $* " != *" --allow-root "* ]]; then
            echo "start.sh: running as root (a container?): JupyterLab refuses root without" \
                 "--allow-root, so it is passed; as a normal user you need neither" >&2
            extra=(--allow-root)
        fi
        exec "$VENV/bin/jupyter" lab --ServerApp.root_dir="$PWD" ${extra[@]+"${extra[@]}"} "$@" "$FIRST"
        ;;
esac
