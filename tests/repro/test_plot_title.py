"""A long experiment title is wrapped above the axes, never cut at the picture's edge (a title
once ended "...(a small demonst"). About 2 s."""

from ftd_lib.repro.plots import plot_results
from ftd_lib.repro.results import load_results, repo_results_dir
from ftd_lib.style import RC


def test_a_long_title_stays_inside_the_picture():
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    res = load_results("acrobot-watkins", repo_results_dir() / "demo")
    long = ("n-step Q(σ) and forward Sarsa(λ) on the slippery puck with a rather long "
            "name (a small demonstration)")
    res.meta["definition"] = dict(res.meta["definition"], title=long)
    with matplotlib.rc_context(RC):
        fig = Figure(figsize=RC["figure.figsize"])
        ax = fig.subplots()
        plot_results(res, ax=ax)
        canvas = FigureCanvasAgg(fig)
        canvas.draw()
        renderer = canvas.get_renderer()
    box, page = ax.title.get_window_extent(renderer), fig.bbox
    assert box.x0 >= page.x0 and box.x1 <= page.x1, (box, page)
    assert ax.title.get_text().replace("\n", " ").startswith(long)
