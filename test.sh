#!/usr/bin/env bash
# Run every test: lint, library tests, the notebooks under nbval (sets up .venv on first use).
set -euo pipefail
cd "$(dirname "$0")"
. scripts/setup_env.sh
python -m ruff check .
python -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env tests notebooks "$@"
