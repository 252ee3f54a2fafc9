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


def test_projected_text_px_by_hand():
    """A 14-inch figure at 135 dpi (1890 px) is shown 1280 px wide on a slide: 13 pt text
    projects at 13 x 135 / 72 x 1280 / 1890 = 16.5 px; 12 pt at 15.2 px (too small)."""
    from ftd_lib.style import MIN_PROJECTED_PX, projected_text_px

    fig, ax = plt.subplots(figsize=(14.0, 3.0))
    ax.set_title("t", fontsize=13)
    ax.set_xlabel("x", fontsize=13)
    ax.tick_params(labelsize=13)
    assert abs(projected_text_px(fig, dpi=135) - 13 * 135 / 72 * 1280 / 1890) < 1e-9
    assert projected_text_px(fig, dpi=135) >= MIN_PROJECTED_PX
    ax.set_xlabel("x", fontsize=12)
    assert projected_text_px(fig, dpi=135) < MIN_PROJECTED_PX
    plt.close(fig)
    # a tall figure is limited by the slide's 440 px for a picture, not by its width
    fig, ax = plt.subplots(figsize=(5.0, 8.8))
    ax.set_title("t", fontsize=14)
    ax.tick_params(labelsize=14)
    assert abs(projected_text_px(fig, dpi=100) - 14 * 100 / 72 * 440 / 880) < 1e-9
    plt.close(fig)


def test_legend_outside_leaves_the_data_alone():
    """The legend moves off the axes: beside one panel, under two; every label once; the
    axes keep no legend of their own."""
    from ftd_lib.style import legend_outside

    for where, n in (("right", 1), ("bottom", 2)):
        fig, axes = plt.subplots(1, n, figsize=(10, 3), squeeze=False)
        for ax in axes.flat:
            ax.plot([0, 1], [0, 1], label="TD(λ)")
            ax.plot([0, 1], [1, 0], label="forward TD(λ)")
            ax.legend(loc="center")
        leg = legend_outside(fig, where=where)
        assert [t.get_text() for t in leg.get_texts()] == ["TD(λ)", "forward TD(λ)"]
        assert all(ax.get_legend() is None for ax in axes.flat)
        fig.canvas.draw()
        box = leg.get_window_extent()
        for ax in axes.flat:
            a = ax.get_window_extent()
            overlap = (min(box.x1, a.x1) - max(box.x0, a.x0) > 0
                       and min(box.y1, a.y1) - max(box.y0, a.y0) > 0)
            assert not overlap, (where, box, a)
        plt.close(fig)
