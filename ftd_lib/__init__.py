"""ftd_lib: the library behind the forward TD(lambda) course.

van Seijen (2016), *Effective Multi-step Temporal-Difference Learning for Non-Linear
Function Approximation*.

- ``returns``: n-step and interim lambda-returns (eq. 2), the identities of App. B, K (Sec. 5)
- ``approx``: Linear and MLP value functions on a flat parameter vector
- ``algorithms``: the per-run reference of every method (Algorithm 1 line by line)
- ``envs``: random walk, one-state example, mountain car, cart-pole
- ``engine``: many runs and settings as one batch (torch); ``experiments``, ``store``,
  ``report``, ``cli``: the paper's Figures 3-4 at quick and paper scale
- ``fig1`` .. ``fig4``, ``timing``, ``plots``, ``widgets``, ``widgets_nn``, ``exercises``:
  what the notebooks show
"""

__version__ = "0.1.0"
