"""The per-run control references, one home, one file a method: the paper's two
(:mod:`.sarsa_lambda`, :mod:`.forward_sarsa_lambda`) and those added beyond the paper
(:mod:`.watkins_q_lambda`, :mod:`.n_step_sarsa`); the public step helpers they share
(:mod:`.common`) and the template every hand-worked episode is written on
(:mod:`.template`).

A **control** reference runs one run live on one environment (the contract of
:func:`ftd_lib.references.sarsa_lambda.sarsa_lambda`: ``env, w0, *, approx, alpha, lam, gamma,
n_episodes, agent, epsilon, truncation, div_bound`` and the method's own parameters ->
:class:`ftd_lib.references.common.ControlRun`), and its hand-worked episode sits beside it
(``HAND_WORKED``). Its row in :mod:`ftd_lib.methods` names it
``"references.<file>:<function>"``; then ``run_control(..., engine="reference")``,
``python -m ftd_lib run FILE`` and :func:`ftd_lib.engine.method_check.check_method` reach it.
A **prediction** reference on recorded episodes follows the contract of
:mod:`ftd_lib.algorithms` and is written there (the row names the bare function).
Its network is the ``approx`` it is handed (``value``, ``grad``: the same bits on every CPU,
:mod:`ftd_lib.portable`), never a ``@`` or ``np.tanh`` of its own, so that its golden numbers
hold on every CPU (``experiments/README.md``, "A new method's golden numbers").
"""
