#!/usr/bin/env bash
# The tests, in two tiers (sets up .venv on first use, with every role: requirements/test.txt):
#   ./test.sh          the full suite (what .ci/run and CI run): lint, every test under tests/,
#                      the notebooks under nbval, then the engine's tests again on other CPU paths,
#                      then the golden chaos test with OpenBLAS choosing its own kernels
#   ./test.sh --fast   the fast tier, before every commit: lint and every test not marked
#                      `slow` (library, envs, engine and its golden numbers, exercise checks,
#                      notebook/source sync, the repository's own rules); no notebook is run,
#                      no browser, no site or deck is built
# Both run on every core (pytest-xdist, one test file to a worker at a time, so a file's
# module-scoped fixtures are built once; FTD_TEST_WORKERS=N sets how many, 0 runs in this
# process). More arguments go to pytest: ./test.sh --fast -x, ./test.sh -k nb02.
# The time each takes, measured, is in CONTRIBUTING.md.
set -euo pipefail
cd "$(dirname "$0")"
# the full suite needs every role (requirements/test.txt); the fast tier, on a machine that runs
# nothing else (the pull requests' job), may take requirements/fast.txt alone: FTD_TEST_ROLE=fast
role=test
if [ "${1:-}" = "--fast" ]; then role=${FTD_TEST_ROLE:-test}; fi
if [ "$role" != test ] && [ "$role" != fast ]; then
  echo "test.sh: FTD_TEST_ROLE must be fast or test, got '$role'" >&2
  exit 2
fi
FTD_ROLE=$role . scripts/setup_env.sh
python -m ruff check .
# numba's cache of the compiled kernels, shared by the test workers and kept between runs
# (a cold compile is most of a fresh clone's fast tier); one folder per state of the sources
# compiled code can come from (the engine, the environments, any module that imports numba),
# because numba checks only the file of the function it loads, not the files of the
# functions it calls: an edit of one of those must not load a stale kernel, and an edit of a
# notebook's helpers need not compile anything again. Older states' folders are removed (the
# code the kernel's extension point writes into __pycache__ as it runs does not count).
# NUMBA_CACHE_DIR set by the caller wins.
if [ -z "${NUMBA_CACHE_DIR:-}" ]; then
  key=$({ find ftd_lib/engine ftd_lib/envs -name '*.py' ! -path '*/__pycache__/*'
          grep -rl --include='*.py' --exclude-dir=__pycache__ numba ftd_lib; } |
        LC_ALL=C sort -u | tr '\n' '\0' | xargs -0 sha256sum | sha256sum | cut -c1-16)
  mkdir -p .test-cache
  find .test-cache -maxdepth 1 -name 'numba-*' ! -name "numba-$key" -exec rm -rf {} +
  export NUMBA_CACHE_DIR="$PWD/.test-cache/numba-$key"
fi
WORKERS=${FTD_TEST_WORKERS:-$(python -c "import os; print(min(os.cpu_count() or 1, 4))")}
PYTEST=(python -m pytest -p no:cacheprovider -n "$WORKERS" --dist loadfile)
if [ "${1:-}" = "--fast" ]; then
  shift
  exec "${PYTEST[@]}" -m "not slow" --durations=10 tests "$@"
fi
"${PYTEST[@]}" --durations=30 --nbval-lax --nbval-current-env tests notebooks "$@"
# The engine's tests (golden numbers included) a second time on other CPU paths of every
# library that picks its kernels at run time, as a machine whose libraries take those paths
# runs them: torch's portable path (ATEN_CPU_CAPABILITY=default: no AVX2/AVX-512 kernels),
# OpenBLAS's oldest x86-64 kernels (OPENBLAS_CORETYPE=Prescott), numpy's baseline loops
# (NPY_DISABLE_CPU_FEATURES: every SIMD target numpy dispatches to on this CPU, AVX2 and
# AVX-512 among them) and numba's generic x86-64 code (NUMBA_CPU_NAME=generic). Results may
# not depend on this machine's vector unit: the golden numbers hold bit for bit there too
# (the kernel-vs-batch bit-for-bit cross-checks skip on torch's default path, saying why).
# Every engine test that computes a run's numbers; not the benchmarks, the argument checks or
# the registry, whose outcome no kernel choice can change.
ENGINE_TESTS=(tests/engine --ignore=tests/engine/test_engine_bench.py
              --ignore=tests/engine/test_engine_bench_k.py
              --ignore=tests/engine/test_bad_input_engine.py
              --ignore=tests/engine/test_engine_registry.py)
NPY_TARGETS=$(python -c "from numpy._core._multiarray_umath import __cpu_dispatch__ as d, \
__cpu_features__ as f; print(' '.join(t for t in d if f[t]))")
ATEN_CPU_CAPABILITY=default OPENBLAS_CORETYPE=Prescott NPY_DISABLE_CPU_FEATURES="$NPY_TARGETS" \
  NUMBA_CPU_NAME=generic "${PYTEST[@]}" -q "${ENGINE_TESTS[@]}"
# The golden workloads' chaos test once more with OpenBLAS choosing its kernels itself
# (OPENBLAS_CORETYPE unset, whatever this shell sets), as on a laptop where nobody sets it: on
# a recent CPU (AVX-512: Intel since Ice Lake, AMD Zen 4) its SkylakeX kernels, which the pass
# above (Prescott) never runs. Only the chaos test's textbook network goes through OpenBLAS
# (the golden numbers' engines do not), so that is all it runs again.
env -u OPENBLAS_CORETYPE "${PYTEST[@]}" -q tests/engine/test_engine_golden_chaos.py -k textbook
