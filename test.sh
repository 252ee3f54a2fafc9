#!/usr/bin/env bash
# Run every test: lint, library tests, the notebooks under nbval (sets up .venv on first use,
# with every role: requirements/test.txt).
set -euo pipefail
cd "$(dirname "$0")"
FTD_ROLE=test . scripts/setup_env.sh
python -m ruff check .
python -m pytest -p no:cacheprovider --nbval-lax --nbval-current-env tests notebooks "$@"
# The engine's tests (golden numbers included) a second time on other CPU paths of every
# library that picks its kernels at run time, as a machine whose libraries take those paths
# runs them: torch's portable path (ATEN_CPU_CAPABILITY=default: no AVX2/AVX-512 kernels),
# OpenBLAS's oldest x86-64 kernels (OPENBLAS_CORETYPE=Prescott), numpy's baseline loops
# (NPY_DISABLE_CPU_FEATURES: every SIMD target numpy dispatches to on this CPU, AVX2 and
# AVX-512 among them) and numba's generic x86-64 code (NUMBA_CPU_NAME=generic). Results may
# not depend on this machine's vector unit: the golden numbers hold bit for bit there too
# (the kernel-vs-batch bit-for-bit cross-checks skip on torch's default path, saying why).
ENGINE_TESTS=(tests/engine)
NPY_TARGETS=$(python -c "from numpy._core._multiarray_umath import __cpu_dispatch__ as d, \
__cpu_features__ as f; print(' '.join(t for t in d if f[t]))")
ATEN_CPU_CAPABILITY=default OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES="$NPY_TARGETS" \
  NUMBA_CPU_NAME=generic python -m pytest -p no:cacheprovider -q "${ENGINE_TESTS[@]}"
