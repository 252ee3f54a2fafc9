"""Smaller pictures for the website: a matplotlib PNG re-encoded with a palette of at most 256
colours (Pillow's fast octree quantiser, alpha kept), which is what a line plot uses anyway, at
a third to a quarter of the bytes (with full-colour PNGs a first visit weighed 3.8-5.3 MB and
an explorer's step waited for its picture on a slow link).

:func:`shrink` re-encodes one picture and keeps the original where the palette would not be
smaller or would change its pixels by more than :data:`MAX_CHANGE` or :data:`MAX_MEAN_CHANGE`
on average (a photograph-like picture);
:func:`shrink_folder` does it to every ``*.png`` under a folder (the site's ``_images`` and the
explorers' frames) and says how many bytes it saved. The notebooks, decks and handouts keep
their pictures as they are: only the website's copies are re-encoded.
"""

from __future__ import annotations

import io
from pathlib import Path

#: the largest change of one channel of one pixel (0-255) the palette may make, and the largest
#: mean change over all of them; beyond either the original is kept (the course's figures: at
#: most 42 and 0.8-2.2 on average; a picture of noise: about 10 on average)
MAX_CHANGE = 64
MAX_MEAN_CHANGE = 4.0
#: colours of the palette
COLOURS = 256


def shrink(data: bytes) -> bytes:
    """``data`` (a PNG) with a palette of :data:`COLOURS` colours, or ``data`` itself when that
    is not smaller or changes some pixel's channel by more than :data:`MAX_CHANGE` or all of them
    by more than :data:`MAX_MEAN_CHANGE` on average."""
    import numpy as np
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        if img.mode == "P":
            return data
        rgba = img.convert("RGBA")
    pal = rgba.quantize(colors=COLOURS, method=Image.Quantize.FASTOCTREE)
    change = np.abs(np.asarray(pal.convert("RGBA"), dtype=np.int16)
                    - np.asarray(rgba, dtype=np.int16))
    if change.max() > MAX_CHANGE or change.mean() > MAX_MEAN_CHANGE:
        return data
    buf = io.BytesIO()
    pal.save(buf, format="PNG", optimize=True)
    out = buf.getvalue()
    return out if len(out) < len(data) else data


def shrink_folder(folder: Path) -> dict:
    """Every ``*.png`` under ``folder`` through :func:`shrink`, rewritten where it got smaller;
    returns ``{"files": n, "before": bytes, "after": bytes}``."""
    before = after = n = 0
    for path in sorted(Path(folder).rglob("*.png")):
        data = path.read_bytes()
        small = shrink(data)
        if small is not data:
            path.write_bytes(small)
        n += 1
        before += len(data)
        after += len(small)
    return {"files": n, "before": before, "after": after}
