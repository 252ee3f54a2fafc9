#!/usr/bin/env bash
# Start the course: JupyterLab on the notebooks, rooted at the repository (sets up .venv on
# first use with the students' role only: requirements/student.txt).
set -euo pipefail
cd "$(dirname "$0")"
FTD_ROLE=student . scripts/setup_env.sh
exec jupyter lab --ServerApp.root_dir="$PWD" notebooks/01_td_basics.ipynb "$@"
