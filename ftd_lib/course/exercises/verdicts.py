"""A check's verdict line: a symbol *and* a word ("✅ Correct", "❌ Not yet", "❌ No answer
yet" ...), so it reads the same where no emoji font draws the symbol; and the words every check
uses while an answer is still missing."""

#: the words a verdict line may start with after its symbol (anything else gets the first)
GOOD_WORDS = ("Correct",)
BAD_WORDS = ("Not yet", "No answer yet", "Close, but", "Off by one")


def verdict(ok: bool, good: str, bad: str) -> bool:
    """Print one line, "✅ Correct: good" or "❌ Not yet: bad" (a message that already starts
    with one of :data:`GOOD_WORDS` / :data:`BAD_WORDS` keeps its own), and return ``ok``."""
    text, words = (good, GOOD_WORDS) if ok else (bad, BAD_WORDS)
    if not text.startswith(words):
        text = f"{words[0]}: {text}"
    print(("✅ " if ok else "❌ ") + text)
    return bool(ok)


#: what a check says while the answer is still the placeholder ``None``
MISSING = ("No answer yet: put your answer in place of None (or fill in the skeleton) and run "
           "the cell again.")
