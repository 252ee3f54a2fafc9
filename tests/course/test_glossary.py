"""The Sutton & Barto glossary of notebook 02 renders as a table."""

from ftd_lib.course.glossary import GLOSSARY, glossary_markdown


def test_glossary_table():
    assert not [c for row in GLOSSARY for c in row if "|" in c], "a | would split a table cell"
    lines = glossary_markdown().splitlines()
    assert len(lines) == len(GLOSSARY) + 2 and all(ln.count("|") == 5 for ln in lines)
    text = glossary_markdown()
    for section in ("§12.2", "§12.3", "§12.4", "§12.5", "§12.7"):
        assert section in text
    assert "online λ-return algorithm" in text and "truncated TD(λ)" in text


def test_n_step_row_cites_the_function_approximation_form():
    """G_{t:t+n} bootstrapping from w_{t+n-1} is eq. 12.1 (§12.1), also eq. 9.16; §7.1 is the
    tabular form."""
    row = next(r for r in GLOSSARY if r[0].startswith("$n$-step return"))
    assert "eq. 12.1" in row[2] and "§12.1" in row[2] and "9.16" in row[2]
    assert "§7.1" not in row[2]


def test_glossary_in_parts_is_the_whole_table():
    """Slides show the table in parts (notebook 02, section 0): the parts' rows, in order, are
    the whole table's rows, each once; a row index out of range is refused."""
    import pytest

    whole = glossary_markdown().splitlines()
    parts = [glossary_markdown(rows=r).splitlines() for r in (range(0, 5), range(5, 10),
                                                             range(10, len(GLOSSARY)))]
    assert all(p[:2] == whole[:2] for p in parts)  # each part has the header
    assert [ln for p in parts for ln in p[2:]] == whole[2:]
    assert glossary_markdown(rows=[3]).splitlines()[2].startswith(r"| TD error $\delta_t$")
    for bad in ([len(GLOSSARY)], [-1], []):
        with pytest.raises(ValueError, match="rows"):
            glossary_markdown(rows=bad)
