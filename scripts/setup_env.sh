# Sourced by course.sh, test.sh and the site's workflow: make (or reuse) .venv with one role's
# pinned requirements (requirements/ROLE.txt, read with the lock requirements/lock.txt) and
# ftd_lib installed in editable mode, then activate it. Needs only Python 3.11 on the PATH.
#   FTD_ROLE=student|grading|site|dask|core|fast|test   (default: test, i.e. every role;
#   fast: what the fast tier of the tests needs)
# On Linux without an NVIDIA GPU (nvidia-smi lists none) torch is the CPU build (torch==X+cpu,
# installed first and alone from PyTorch's CPU wheel index): PyPI's Linux wheel pulls several GB
# of CUDA libraries (FTD_TORCH=default keeps pip's choice, FTD_TORCH=cpu forces the CPU build).
# A stamp per role (.venv/.ftd_ROLE.sha) skips the install while the role files, the lock and
# pyproject.toml are unchanged; the test role's stamp stands for every role.
# Safe to source from an interactive shell too (`. scripts/setup_env.sh`): sets no shell options.
PY=${PYTHON:-python3}
FTD_ROLE=${FTD_ROLE:-test}
if [ ! -f "requirements/$FTD_ROLE.txt" ] || [ "$FTD_ROLE" = lock ]; then
  echo "setup_env.sh: FTD_ROLE must be one of student grading site dask core fast test, got" \
       "'$FTD_ROLE'" >&2
  return 1 2>/dev/null || exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
want=$(cat requirements.txt requirements/*.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat ".venv/.ftd_$FTD_ROLE.sha" 2>/dev/null)" != "$want" ] &&
   [ "$(cat .venv/.ftd_test.sha 2>/dev/null)" != "$want" ]; then
  python -m pip install -q --upgrade pip
  case "${FTD_TORCH:-}" in
    cpu) ftd_cpu=1 ;;
    default) ftd_cpu=0 ;;
    *) ftd_cpu=0
       if [ "$(uname -s)" = Linux ] && ! { command -v nvidia-smi >/dev/null 2>&1 &&
            nvidia-smi -L 2>/dev/null | grep -q '^GPU'; }; then ftd_cpu=1; fi ;;
  esac
  if [ "$ftd_cpu" = 1 ]; then  # torch alone from the CPU index; the role then keeps it
    python -m pip install -q --no-deps --extra-index-url https://download.pytorch.org/whl/cpu \
      "torch==$(sed -n 's/^torch==\([^ #+]*\).*/\1/p' requirements/core.txt)+cpu"
  fi
  python -m pip install -q -r "requirements/$FTD_ROLE.txt"
  python -m pip install -q --no-deps -e .
  echo "$want" > ".venv/.ftd_$FTD_ROLE.sha"
fi
