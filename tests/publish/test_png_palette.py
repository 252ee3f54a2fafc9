"""The website's smaller pictures (ftd_lib/publish/png_palette.py): a course figure re-encoded
with a palette is much smaller, the same size and nearly the same pixels; a picture the palette
would spoil, or not shrink, is kept as it is."""

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from ftd_lib.publish import png_palette as PP  # noqa: E402
from ftd_lib.style import use_style  # noqa: E402


def _figure_png() -> bytes:
    use_style()
    fig, ax = plt.subplots(figsize=(7, 4))
    x = np.linspace(0, 10, 200)
    for k in range(4):
        ax.plot(x, np.sin(x + k), label=f"curve {k}")
    ax.fill_between(x, -0.5, 0.5, alpha=0.2)
    ax.set(title="a title", xlabel="x", ylabel="y")
    ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=135)
    plt.close(fig)
    return buf.getvalue()


def _pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGBA"), dtype=np.int16)


def test_a_course_figure_shrinks_and_keeps_its_pixels():
    data = _figure_png()
    small = PP.shrink(data)
    assert len(small) < len(data) / 2, (len(small), len(data))
    a, b = _pixels(data), _pixels(small)
    assert a.shape == b.shape
    assert np.abs(a - b).max() <= PP.MAX_CHANGE
    assert np.abs(a - b).mean() <= PP.MAX_MEAN_CHANGE
    assert PP.shrink(small) is small  # a palette picture is left alone


def test_a_picture_the_palette_would_spoil_is_kept():
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 256, size=(64, 64, 3), dtype=np.uint8)  # 4096 colours and more
    buf = io.BytesIO()
    Image.fromarray(noise).save(buf, format="PNG")
    data = buf.getvalue()
    assert PP.shrink(data) is data


def test_shrink_folder_rewrites_only_what_got_smaller(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "fig.png").write_bytes(_figure_png())
    rng = np.random.default_rng(1)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, size=(32, 32, 3), dtype=np.uint8)).save(buf, "PNG")
    (tmp_path / "noise.png").write_bytes(buf.getvalue())
    got = PP.shrink_folder(tmp_path)
    assert got["files"] == 2 and got["after"] < got["before"] / 1.5
    assert (tmp_path / "noise.png").read_bytes() == buf.getvalue()
    assert Image.open(tmp_path / "sub" / "fig.png").mode == "P"
