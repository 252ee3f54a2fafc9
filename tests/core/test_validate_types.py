"""No shared check takes a bool or a string where a number is expected: ``True`` is not 1.0 and
``"0.5"`` is not 0.5 (``params.sigma=true`` once ran as sigma = 1), while a number of any
numpy kind still passes to the same value."""

import numpy as np
import pytest

from ftd_lib import validate as V

#: (name, call with one value) of every shared check of a number or an array of numbers
SCALAR_CHECKS = [
    ("alpha", V.check_alpha),
    ("sigma", lambda v: V.check_unit("sigma", v)),
    ("eta", V.check_eta),
    ("v0", lambda v: V.check_number("v0", v)),
    ("beta", lambda v: V.check_number("beta", v, minimum=0.0)),
]
ARRAY_CHECKS = [
    ("w0", lambda v: V.check_w0([0.1, v], 2)),
    ("x", lambda v: V.check_finite_array("x", [0.1, v])),
    ("episodes", lambda v: V.check_episodes([(np.zeros((2, 1)), [v])], 1)),
]


@pytest.mark.parametrize("bad", [True, False, np.True_, "0.5", b"0.5", np.str_("0.5")])
@pytest.mark.parametrize("name, check", SCALAR_CHECKS + ARRAY_CHECKS,
                         ids=[n for n, _ in SCALAR_CHECKS + ARRAY_CHECKS])
def test_a_bool_or_a_string_is_refused_naming_the_parameter(name, check, bad):
    with pytest.raises(ValueError, match=name):
        check(bad)


@pytest.mark.parametrize("good", [0.5, np.float64(0.5), np.float32(0.5), 1, np.int64(1)])
@pytest.mark.parametrize("name, check", SCALAR_CHECKS, ids=[n for n, _ in SCALAR_CHECKS])
def test_numbers_of_any_kind_pass_as_themselves(name, check, good):
    if name == "eta" and good == 1:
        pytest.skip("eta is in the open interval (0, 1)")
    assert check(good) == float(good) and type(check(good)) is float


def test_integers_refuse_bools_and_strings_too():
    for bad in (True, "3", 2.5):
        with pytest.raises(ValueError, match="n must be an integer"):
            V.check_int("n", bad, 1)
    assert V.check_int("n", 3.0, 1) == 3
