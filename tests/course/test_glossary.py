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
