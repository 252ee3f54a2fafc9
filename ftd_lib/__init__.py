"""ftd_lib: the library behind the forward TD(lambda) course.

van Seijen (2016), *Effective Multi-step Temporal-Difference Learning for Non-Linear
Function Approximation*.

The paper's per-run math:

- ``returns``: n-step and interim lambda-returns (eq. 2), the identities of App. B, K (Sec. 5)
- ``approx``: Linear and MLP value functions on a flat parameter vector
- ``algorithms``: the per-run reference of every method (TD(0), TD(lambda), the lambda-return
  algorithms, Algorithm 1 line by line)
- ``methods``: the one table of methods (id, label, colour, where each runs)
- ``rng``, ``validate``: per-run random streams; the checks every public function shares
- ``style``: one look for every figure (palette, fonts, dpi, off-chart markers)

- ``envs``: random walk, one-state example, mountain car, cart-pole; ``envs.tasks``: the one
  registry of the control tasks (gamma, episode caps, scaling, actions)
- ``engine``: many runs and settings as one batch (torch)
- ``repro``: the paper's figures: Figs. 1-2 (``fig1``, ``fig2``), Figs. 3-4 at quick and paper
  scale (definitions, chunks, store, provenance, results, runs, plots, report, the command
  line ``python -m ftd_lib``)
- ``figures``: ``figure_1()`` .. ``figure_4()``, the table from each paper figure to its code
- ``course``: what the notebooks call, one module per notebook, and the pieces they share

Floors, from the ground up: validate, rng, approx, methods, style; returns, envs; algorithms
(sarsa); engine; repro, figures; course. A module imports only from its floor and the floors
below, and there is no import circle (``tests/core/test_layering.py``).
"""

__version__ = "0.2.0"
