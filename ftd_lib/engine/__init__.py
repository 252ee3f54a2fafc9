r"""The batched engine: many independent runs and settings of the paper's methods as one batch.

Every row of a batch is one independent run with its own settings
:math:`(\alpha, \lambda, \gamma, \eta, K_{max})`, its own network :math:`\theta` (the paper's
2-50-1 / 4-50-1 tanh network, :class:`ftd_lib.approx.MLP`'s function and flat layout), its
own random streams and its own episode clock. Gradients are written by hand (no autograd),
arithmetic is float64 by default (float32 optional) on any torch device (CPU default).

Public API
----------
Settings::

    s = Settings.make(alpha=[...], lam=[...], gamma=1.0, eta=0.01, k_max=None)
    # scalars broadcast; k_max entries None (no cap) or ints >= 1; len(s) = number of rows
    s = Settings.from_rows([dict(alpha=.01, lam=.9, gamma=1.), ...])

Prediction on recorded episodes (the per-run reference's contract, for exactness tests)::

    res = run_recorded(method, episodes, w0, settings, n_hidden=50, device="cpu",
                       dtype=torch.float64, eval_states=None)
    res.weights[b]     # (sum T, P): theta after every time step of row b, what
                       # ftd_lib.algorithms.<method>(episodes[b], w0[b], approx=MLP(n, 50), ...)
                       # returns, to 1e-10 in float64 (nan after a divergence)
    res.final_weights  # (B, P); res.errors if eval_states=(states, true_values) is given

``episodes``: one list of ``(features (T+1, n), rewards (T,))`` per row, or one list shared by
all rows; ``w0``: ``(P,)`` or ``(B, P)`` in the reference layout.

Prediction on the live mountain car evaluation task (paper Fig. 3)::

    res = run_prediction(method, settings, seed, run_ids, n_episodes, env="mountain_car",
                         n_eval=500, eval_seed=0, device="cpu", dtype=torch.float64,
                         progress=False)
    # env: "mountain_car" (MountainCarEvaluation) or a factory env(seed, run_ids);
    # eval_states=(states, true_values) overrides evaluation_states(n_eval, eval_seed)
    res.errors         # (B, n_episodes): RMS error over a fixed sample of on-policy states
                       # with exact true values, at the end of every episode, divided by the
                       # row's initial error; inf from the episode in which a row diverged on
    res.errors.mean(1) # the paper's metric: average over the first n_episodes
    res.diverged       # (B,) bool

Both take ``engine="batch"`` (default, the torch batch) or ``engine="kernel"``: TD(0) and
forward TD(lambda) through compiled per-run loops (:mod:`.kernel.prediction`; float64, CPU;
live: mountain car, whose episodes are recorded first), the batch's numbers bit for bit for
every run that does not diverge, at TD(0)'s cost per step whatever K
(``results/engine_k_sweep.json``, :mod:`.bench_k`).

Control (paper Fig. 4), one network per action, epsilon-greedy (ties: lowest action index)::

    res = run_control(method, settings, seed, run_ids, n_episodes, env="mountain_car" or
                      "cartpole", epsilon=0.05, max_steps=None, truncation="bootstrap",
                      width=None, device="cpu", dtype=torch.float64, engine="auto")
    res.curves         # (N, n_episodes): return (sum of rewards) of every episode (also
                       # res.returns); prediction results call their curves `curves` too
    res.lengths        # (N, n_episodes): steps of every episode
    res.diverged       # (N,) bool; returns of a diverged run are nan from then on
    res.engine         # which engine ran it (below)
    # max_steps: episode cap (None: the task's, 5000 mountain car, 1000 cart-pole);
    # truncation="bootstrap": a cap is a time limit, the last target bootstraps from
    # Q(S', A') (Pardo et al. 2018); "terminal": value 0 after the last state.
    # engine (choose_engine): "kernel" run by run in compiled code (ftd_lib.engine.kernel:
    # tasks flagged kernel, float64, CPU); "batch" a torch batch of `width` rows that stays
    # full (ftd_lib.engine.control: any env, dtype, device); "reference" the readable
    # per-run references (ftd_lib.algorithms.sarsa_lambda, .forward_sarsa_lambda), which
    # both others follow; "auto" the first that can run. Methods and their implementations:
    # ftd_lib.methods.

Every result also has ``diverged_at`` (episode, -1 if never), ``final_weights`` (reference
layout; control ``(B, A, P)``), ``n_steps`` (environment steps per row) and ``iterations``
(batch iterations). ``device="auto"`` picks CUDA when present.

Methods: prediction ``"td0"``, ``"td_lambda"`` (accumulating traces), ``"forward_td_lambda"``
(Algorithm 1), ``"online_lambda_return"``, ``"offline_lambda_return"``,
``"block_lambda_return"`` (GAE targets over blocks of B = ``k_max`` steps, one SGD pass,
:mod:`ftd_lib.engine.block`); control
``"sarsa_lambda"`` (accumulating traces, every action's trace decays every step),
``"forward_sarsa_lambda"`` (Algorithm 1 with :math:`\hat Q(S', A')` of the epsilon-greedily chosen
next action, the update going to the network of the popped state's action).

``run_ids`` (one per row) decide every random number of a row -- its initial weights
(:func:`initial_weights`: ``MLP.init(run_generator(seed, run_id, INIT_STREAM))``, one
network after another for control), its environment and its exploration -- so rows with the
same run id get the same :math:`\theta_0` and the same environment randomness whatever
their method, settings or batch (common random numbers), and a row's result never depends on
the rows it shares a batch with: its numbers are bit for bit the same alone or in any batch
(tested for every method, on the CPU and CUDA).

Divergence: a row whose value, weight or error becomes non-finite or larger than
``div_bound`` (default 1e6) is frozen and reported as diverged; the others go on. No
warnings are emitted.

Speed: :mod:`ftd_lib.engine.bench` (``run_bench(device="cpu", threads=1)``, the CLI's
``bench``) measures run-steps per second against per-run loops. The engine does not change
torch's thread count itself (the bench sets 1 thread while it measures). Schedule and data
layout: :mod:`ftd_lib.engine.prediction`, :mod:`ftd_lib.engine.control`,
:mod:`ftd_lib.engine._net`.

This module is the engine's face: the functions above live in :mod:`.control_run`
(``run_control``, ``choose_engine``), :mod:`.predict` (``run_recorded``, ``run_prediction``),
:mod:`.weights` (``initial_weights``), :mod:`.versions` (``numerics_version``) and
:mod:`.settings` (``Settings``).
"""

from __future__ import annotations

from ..rng import AGENT_STREAM, INIT_STREAM
from .control_run import DEFAULT_WIDTH, ENGINES, choose_engine, run_control
from .predict import run_prediction, run_recorded
from .prediction import PREDICTION_METHODS, Evaluator
from .results import ControlResult, PredictionResult
from .settings import Settings
from .versions import CONTROL_METHODS, NUMERICS_VERSION, numerics_version
from .weights import INITS, initial_weights

__version__ = "2.0"

__all__ = [
    "AGENT_STREAM",
    "CONTROL_METHODS",
    "ControlResult",
    "INITS",
    "INIT_STREAM",
    "NUMERICS_VERSION",
    "PREDICTION_METHODS",
    "Evaluator",
    "PredictionResult",
    "Settings",
    "initial_weights",
    "numerics_version",
    "run_control",
    "run_prediction",
    "run_recorded",
    "choose_engine",
    "DEFAULT_WIDTH",
    "ENGINES",
]
