import numpy as np
import pytest

from ftd_lib.approx import MLP, Linear


def random_episodes(rng, n_features, lengths, reward_scale=1.0):
    """Random episodes in the contract's format: features in [-1, 1], random rewards."""
    eps = []
    for T in lengths:
        x = rng.uniform(-1, 1, size=(T + 1, n_features))
        r = reward_scale * rng.normal(size=T)
        eps.append((x, r))
    return eps


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


APPROXES = {"linear": lambda: Linear(3), "mlp": lambda: MLP(3, 6)}


@pytest.fixture(params=sorted(APPROXES))
def approx(request):
    return APPROXES[request.param]()


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "fresh_venv: makes a fresh virtual environment from the students' copy's own "
        "start.sh (minutes; runs in CI: `-m 'not fresh_venv'` leaves it out locally)")


def students_copy(fn):
    """``fn`` as a student who wrote it would hand it in: the same source compiled anew (a new
    code object, in a copy of its module's namespace), so the exercise checks, which refuse the
    library's own function by identity, alias or wrapper, see a student's function. (A student
    who copies the library's source is what the checks cannot tell apart: INSTRUCTORS.md.)"""
    import inspect
    import sys
    import textwrap

    ns = dict(vars(sys.modules[fn.__module__]))
    exec(compile(textwrap.dedent(inspect.getsource(fn)), f"<a student's {fn.__name__}>", "exec"),
         ns)  # noqa: S102
    return ns[fn.__name__]
