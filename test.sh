#!/usr/bin/env bash
# Run every test: lint, library tests, the notebooks under nbval (sets up .venv on first use,
# with every role: requirements/test.txt).
set -euo pipefail
cd "$(dirname "$0")"
FTD_ROLE=test . scripts/setup_env.sh
python -m ruff check .
python -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env tests notebooks "$@"
# The engine's tests a second time on torch's portable CPU path (ATEN_CPU_CAPABILITY=default,
# no AVX2/AVX-512 kernels), as a machine whose torch takes another path runs them: results
# may not depend on this machine's vector unit (the kernel-vs-batch bit-for-bit cross-checks
# skip there, saying why).
ENGINE_TESTS=(tests/engine)
ATEN_CPU_CAPABILITY=default python -m pytest -p no:cacheprovider -q "${ENGINE_TESTS[@]}"
