"""ftd_lib: the library behind the forward TD(lambda) course.

van Seijen (2016), *Effective Multi-step Temporal-Difference Learning for Non-Linear
Function Approximation*. Modules: ``returns`` (the lambda-returns of Sec. 4 and App. B),
``approx`` (linear and MLP value functions), ``algorithms`` (per-run reference of every
method), ``envs`` (random walk, one-state example, mountain car, cart-pole).
"""

__version__ = "0.1.0"
