import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ftd_lib.methods import style  # noqa: E402
from ftd_lib.style import plot_off_chart  # noqa: E402


def test_off_chart_one_sided():
    fig, ax = plt.subplots()
    line = plot_off_chart(ax, [0, 1, 2, 3], [0.5, np.inf, np.nan, 3.0], 1.0, **style("td_lambda"))
    y = line.get_ydata()
    assert y[0] == 0.5 and np.all(y[1:] == 1.04)  # inf, nan, 3.0 pinned above the top
    assert ax.get_ylim()[1] == 1.08
    markers = [ln for ln in ax.lines if ln.get_marker() == "^"]
    assert len(markers) == 1 and len(markers[0].get_xdata()) == 3
    assert line.get_label() == "TD(λ)"
    plt.close(fig)


def test_off_chart_two_sided():
    fig, ax = plt.subplots()
    line = plot_off_chart(ax, [0, 1, 2, 3], [0.0, 5.0, -np.inf, -9.0], 1.0, -1.0)
    y = line.get_ydata()
    assert list(y) == [0.0, 1.08, -1.08, -1.08]
    assert ax.get_ylim() == (-1.16, 1.16)
    assert {ln.get_marker() for ln in ax.lines} >= {"^", "v"}
    plt.close(fig)


def test_single_panel_is_readable_in_a_large_hall():
    """A single panel in the course style is shown at least 900 px wide (inline figures are
    drawn at figure.dpi) with every text, legend included, at 12 pt or more."""
    import io

    from matplotlib.image import imread

    from ftd_lib.style import new_axes

    fig, ax = new_axes("title", "x", "y")
    ax.plot([0, 1], [0, 1], label="TD(λ)")
    leg = ax.legend()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")  # savefig.dpi, as a handout saves it
    buf.seek(0)
    assert imread(buf).shape[1] >= 900
    assert fig.get_size_inches()[0] * fig.dpi >= 900
    sizes = [t.get_fontsize() for t in (ax.title, ax.xaxis.label, ax.yaxis.label,
                                        *leg.get_texts(), *ax.get_xticklabels())]
    assert min(sizes) >= 12, sizes
    plt.close(fig)
