"""Per-run references of methods added beyond the paper, one file each.

Where a per-run reference goes (the one rule): a **prediction** method on recorded episodes
follows the contract of :mod:`ftd_lib.algorithms` and is written there; a **control** method,
one run live on one environment (the contract of :func:`ftd_lib.sarsa.sarsa_lambda`: ``env,
w0, *, approx, alpha, lam, gamma, n_episodes, agent, epsilon, truncation, div_bound`` ->
:class:`ftd_lib.sarsa.ControlRun`), is a file of its own here -- the paper's two live in
:mod:`ftd_lib.sarsa`. Its row in :mod:`ftd_lib.methods` names it ``"references.<file>:<function>"``
(``"sarsa:sarsa_lambda"``, or a bare name for :mod:`ftd_lib.algorithms`); then
``run_control(..., engine="reference")``, ``python -m ftd_lib run FILE`` and
:func:`ftd_lib.engine.method_check.check_method` reach it. Its network is the ``approx`` it is
handed (``value``, ``grad``: the same bits on every CPU, :mod:`ftd_lib.portable`), never a
``@`` or ``np.tanh`` of its own, so that its golden numbers hold on every CPU
(``experiments/README.md``, "A new method's golden numbers").
"""
