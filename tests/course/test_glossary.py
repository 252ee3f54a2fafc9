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
