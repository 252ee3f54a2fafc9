#!/usr/bin/env bash
# Start the course: JupyterLab on the notebooks (sets up .venv on first use).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_env.sh
exec jupyter lab notebooks/01_td_basics.ipynb "$@"
