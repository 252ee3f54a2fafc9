r"""The compiled per-run prediction loops: TD(0) and forward TD(:math:`\lambda`) (paper
Sec. 5, Algorithm 1) on recorded episodes, one run after another, float64 on the CPU
(``run_recorded(..., engine="kernel")``).

Why: in the torch batch (:class:`..prediction.PredictionBatch`) every iteration costs the
whole batch's width, so the work one row needs in an iteration (slot A's extra update while
it flushes, a second environment step while it is update-free) is paid by all rows as soon as
one row needs it; with rows out of phase that is nearly every iteration once K > 1, and the
share grows with K (``python -m ftd_lib bench``, ``results/engine_k_sweep.json``). A run alone
does exactly Algorithm 1's work: per step :math:`\hat V(S'|\theta)` and, once ready, one
popped update; per episode T - 1 values of :math:`S'` and T popped updates, which is TD(0)'s
count (T - 1 values of :math:`S'`, T values and updates of S), whatever K.
:func:`forward_td_episode` and :func:`td0_run` count them (``work``), so a test checks that
without a clock.

Numbers: every row is the batch's bit for bit (same operations in the same order, the
arithmetic of :mod:`.numerics`) where :func:`..premises.kernel_premises` holds; the values
of a terminal :math:`S'` (0 by definition) are not computed, and a run diverges when a value
it computes or a weight at an episode's end is beyond ``bound`` (the batch also checks values
it computes for idle slots), so only diverging runs can end differently.

Speed (the same operations, so the same numbers): the passes over the hidden units are
:mod:`.passes`' (each update fused with the values that need its weights next); the loops
and passes are separate compiled functions, which LLVM inlines into the entry points (one per
method for the paper's 2-50-1 network, with its sizes as constants: whole vectors, no
trip-count checks; one for other sizes), so that each is compiled once (numba's own inlining
of everything into each entry point took about four times as long to compile and ran about
10 % faster a run-step: ``scripts/measure_kernel_compile.py``,
``scripts/compare_prediction_kernels.py``); the exponential's exponent is an int32, which
AVX2 converts 4 lanes at a time (:func:`.numerics.sleef_exp`); the FIFO's slots advance
without a division. The flush's K - 1 pops are a chain (each value needs the previous
update), so alone a flush pass would compute one value where TD(0)'s compute two; forward
TD(:math:`\lambda`)'s rows run two at a time (:func:`_forward_pair`), each row's episode on
its own and their flushes side by side, a pop of each in one pass
(:func:`.passes.update_value_pair`), each row's operations unchanged.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import algorithm1
from .numerics import update, value
from .passes import keep, ok_weights, update_value, update_value2, update_value_pair, value2


@njit(cache=True, error_model="numpy")
def td0_run(th, X, Xn, r, end, alpha, gamma, bound, ep_w, rec, work, n, H):
    r"""One run of TD(0) (Sec. 3): :math:`\delta = R + \gamma\hat V(S'|\theta) -
    \hat V(S|\theta)`, :math:`\theta \leftarrow \theta + \alpha\delta\nabla\hat V(S|\theta)`.

    ``th`` ``(1, P)`` (internal order, updated in place); the run's steps: features ``X``,
    ``Xn`` ``(T, n)``, rewards ``r`` and ``end`` flags ``(T,)``. Fills ``ep_w[e]`` with the
    weights at the end of episode e, ``rec[t]`` (if it has rows) after step t; ``work``
    ``(2,)`` counts values and updates; ``n`` features, ``H`` hidden units. Returns
    ``(diverged_at, steps)`` (-1: never)."""
    hh = np.empty(2 * H)  # the hidden units of S' (hh[:H]) and of S or S_p (h = hh[H:])
    h = hh[H:]
    d = np.empty(H)
    ep = 0
    T = X.shape[0]
    ahead = False  # this step's values computed in the previous step's update pass
    a_next = a_v = 0.0
    for t in range(T):
        if ahead:  # at these weights, S's hidden units in h
            v_next, v = a_next, a_v
            ahead = False
        elif not end[t]:
            v_next, v = value2(th, Xn[t], X[t], n, H, hh)
        else:
            v_next = 0.0
            v = value(th, 0, X[t], n, H, h)
        if not end[t]:
            work[0] += 1
        delta = r[t] + gamma * v_next - v
        coef = alpha * delta
        # the update, and in its pass over the hidden units the next step's values
        if t + 1 < T:
            if not end[t + 1]:
                a_next, a_v = update_value2(th, X[t], coef, Xn[t + 1], X[t + 1], n, H, hh)
            else:
                a_next = 0.0
                a_v = update_value(th, X[t], coef, X[t + 1], n, H, h)
            ahead = True
        else:
            update(th, 0, X[t], n, H, h, d, coef)
        work[0] += 1
        work[1] += 1
        if rec.shape[0]:
            keep(rec[t], th[0])
        if not (abs(v_next) <= bound and abs(v) <= bound):
            th[:] = 0.0
            return ep, t + 1
        if end[t]:
            if not ok_weights(th, bound):
                th[:] = 0.0
                return ep, t + 1
            keep(ep_w[ep], th[0])
            ep += 1
    return -1, X.shape[0]


@njit(cache=True, error_model="numpy")
def forward_td_episode(th, X, Xn, r, end, t0, alpha, gamma, gl, g1l, Km1, c_final, gl_div,
                       R, bound, rec, work, n, H, hh, d, ring_x, ring_r):
    r"""One episode of forward TD(:math:`\lambda`), Algorithm 1, from step ``t0``, in the
    order of :meth:`..prediction_forward.ForwardTDLoop._loop_forward` for one row, up to its
    end-of-episode flush (:func:`flush_pops`), which it leaves to the caller: ``Km1`` = K - 1,
    ``c_final``, ``gl_div``, FIFO length ``R`` (:func:`..schedule.algorithm1_constants`),
    ``gl`` = :math:`\gamma\lambda`, ``g1l`` = :math:`\gamma(1-\lambda)`; the rest as
    :func:`td0_run`; ``hh`` ``(2H,)``, ``d`` ``(H,)``, the FIFO ``ring_x`` ``(R, n)`` and
    ``ring_r`` ``(R,)``: scratch. ``rec[t]``: the weights after step t (the episode's last
    step: after the flush, by the caller).

    Returns ``(status, t, U, p, q, qs, v)``: ``status`` 0 if step ``t`` ends the episode
    (the flush pops the FIFO's slots ``qs`` ... from ``q`` to ``p`` towards ``U``; ``v`` is
    the first pop's value if ``q < p``, computed in the last update's pass, its hidden units
    in ``hh[H:]``), 1 if the run diverged at step ``t`` (``th`` zeroed), 2 if the steps ran
    out before the episode's end."""
    h = hh[H:]
    U, U_sync, V_cur, c, i, ready = algorithm1.start()
    p = q = 0  # pushed and popped this episode
    ps = qs = 0  # their slots in the FIFO (p % R and q % R, kept without a division)
    cached = False
    v_cached = 0.0
    T = X.shape[0]
    ahead = False  # this step's V(S') and V(S_p) computed in the previous step's update pass
    a_next = a_p = 0.0
    for t in range(t0, T):
        # push phi(S) (its rho below); this step pops if the row is ready or gets ready now
        slot = ps
        for j in range(n):
            ring_x[slot, j] = X[t, j]
        p += 1
        ps = ps + 1 if ps + 1 < R else 0
        pop = ready or i == Km1
        v_next = vp = 0.0
        if ahead:  # computed in the previous step's update pass; S_p's hidden units in h
            v_next, vp = a_next, a_p
            ahead = False
            if not end[t]:
                work[0] += 1
        elif cached:  # computed with the previous step's V(S'): no update since
            v_next = v_cached
            cached = False
        elif not end[t]:
            # V(S') side by side with V(S_p) at the same weights, or, if the next step pops
            # nothing either (no update between), with the next step's V(S'); else alone
            if pop or (i + 1 != Km1 and not end[t + 1]):
                v_next, v_b = value2(th, Xn[t], ring_x[qs] if pop else Xn[t + 1], n, H, hh)
                if pop:
                    vp = v_b
                else:
                    v_cached = v_b
                    cached = True
                    work[0] += 1
            else:
                v_next = value(th, 0, Xn[t], n, H, hh)
            work[0] += 1
        elif pop:
            vp = value(th, 0, ring_x[qs], n, H, h)
        ring_r[slot], U, U_sync, V_cur, c, i, ready = algorithm1.step(
            r[t], v_next, U, U_sync, V_cur, c, i, ready, gamma, g1l, gl, Km1, c_final)
        v = 0.0
        if pop:  # pop <S_p, rho_p>: update towards U, move U on
            coef = alpha * (U - vp)
            qo = qs
            U = algorithm1.shift(U, ring_r[qo], gl_div)
            q += 1
            qs = qs + 1 if qs + 1 < R else 0
            work[0] += 1
            work[1] += 1
            # the update, and in its pass over the hidden units the values that need it
            # next: the next step's (it pops too; its S_p is the FIFO's next or, if the FIFO
            # is empty, the S it pushes), or at the episode's end the flush's first
            if not end[t] and t + 1 < T:
                xp = X[t + 1] if p == q else ring_x[qs]
                if not end[t + 1]:
                    a_next, a_p = update_value2(th, ring_x[qo], coef, Xn[t + 1], xp, n, H,
                                                hh)
                else:
                    a_next = 0.0
                    a_p = update_value(th, ring_x[qo], coef, xp, n, H, h)
                ahead = True
            elif end[t] and p > q:
                v = update_value(th, ring_x[qo], coef, ring_x[qs], n, H, h)
            else:
                update(th, 0, ring_x[qo], n, H, h, d, coef)
        if not (abs(v_next) <= bound and abs(vp) <= bound):
            th[:] = 0.0
            return 1, t, U, p, q, qs, v
        if end[t]:
            U = algorithm1.episode_end(U, U_sync, ready)
            if not pop and p > q:  # the flush's first value (no update before it)
                v = value(th, 0, ring_x[qs], n, H, h)
            return 0, t, U, p, q, qs, v
        if rec.shape[0]:
            keep(rec[t], th[0])
    return 2, T - 1, U, p, q, qs, 0.0


@njit(cache=True, error_model="numpy")
def flush_pop(th, ring_x, ring_r, R, U, p, q, qs, v, alpha, gl_div, bound, work):
    r"""The bookkeeping of one flush pop of the FIFO's slot ``qs`` (Algorithm 1, line 29:
    the update towards U with :math:`c = \alpha(U - \hat V(S_p))` of the value ``v``, U moved
    on): returns ``(ok, coef, qo, U, q, qs)``; not ok (``th`` zeroed) if ``v`` is beyond
    ``bound``. The update itself is the caller's (fused with the next pop's value)."""
    qo = qs
    coef = alpha * (U - v)
    U = algorithm1.shift(U, ring_r[qo], gl_div)
    q += 1
    qs = qs + 1 if qs + 1 < R else 0
    work[0] += 1
    work[1] += 1
    if not abs(v) <= bound:
        th[:] = 0.0
        return False, coef, qo, U, q, qs
    return True, coef, qo, U, q, qs


#: the kernel's prediction methods (their loops: :func:`_run_rows`)
PREDICTION_RUNS = ("td0", "forward_td_lambda")


@njit(cache=True, error_model="numpy")
def _row(tr, n, b, T, REC):
    """Row b's steps: features ``X``, ``Xn`` ``(T, n)``, rewards, end flags (the layout of
    :class:`..sources.RecordedSource`: the first T columns of ``tr[:, b]``) and its rows of
    ``REC`` (none if ``REC`` records nothing)."""
    X = tr[:n, b, :T].T.copy()
    Xn = tr[n + 1 : 2 * n + 1, b, :T].T.copy()
    r = tr[2 * n + 2, b, :T].copy()
    end = tr[2 * n + 3, b, :T] > 0.5
    rec = REC[b, :T] if REC.shape[1] else REC[b, :0]
    return X, Xn, r, end, rec


@njit(cache=True, error_model="numpy")
def _td0_rows(TH, tr, n, H, n_steps, alpha, gamma, bound, EP_W, REC, work, diverged_at):
    """Every row ``b`` (weights ``TH[b]``, internal order, in place) through
    :func:`td0_run`; its steps: :func:`_row`."""
    for b in range(TH.shape[0]):
        X, Xn, r, end, rec = _row(tr, n, b, n_steps[b], REC)
        diverged_at[b], n_steps[b] = td0_run(TH[b : b + 1], X, Xn, r, end, alpha[b],
                                             gamma[b], bound, EP_W[b], rec, work[b], n, H)


@njit(cache=True, error_model="numpy")
def _forward_pair(TH, tr, b0, m, n, H, n_steps, alpha, gamma, gl, g1l, Km1, c_final, gl_div,
                  ring, bound, EP_W, REC, work, diverged_at):
    r"""Rows ``b0`` .. ``b0 + m - 1`` (``m`` = 1 or 2) through forward TD(:math:`\lambda`),
    Algorithm 1, episode by episode: each row's episode (:func:`forward_td_episode`), then
    their end-of-episode flushes side by side, a pop of each row in one pass
    (:func:`.passes.update_value_pair`) while both have pops, then the end-of-episode
    checks. A row's operations and their order are a row alone's, so its numbers too; the pair
    only fills the flush's passes, which alone compute one value each (each needs the previous
    update). A row's result as :func:`td0_run`'s: ``diverged_at[b]`` (the episode, -1: never) and
    ``n_steps[b]`` (the steps it made)."""
    hh = np.empty(2 * H)  # an episode's hidden units (hh[H:]: S or S_p)
    hh2 = np.empty(2 * H)  # the flushes': row b0's in hh2[:H], row b0 + 1's in hh2[H:]
    d = np.empty(H)
    Rmax = ring[b0] if m == 1 else max(ring[b0], ring[b0 + 1])
    RX = np.empty((2, Rmax, n))
    RR = np.empty((2, Rmax))
    XA, XnA, rA, endA, recA = _row(tr, n, b0, n_steps[b0], REC)
    b1 = b0 + 1 if m == 2 else b0
    XB, XnB, rB, endB, recB = _row(tr, n, b1, n_steps[b1], REC)
    Xs, Xns, rs, ends, recs = (XA, XB), (XnA, XnB), (rA, rB), (endA, endB), (recA, recB)
    t = np.zeros(2, dtype=np.int64)  # each row's next step
    ep = np.zeros(2, dtype=np.int64)
    live = np.zeros(2, dtype=np.bool_)
    pend = np.zeros(2, dtype=np.bool_)  # its episode ended: a flush and the checks to do
    has = np.zeros(2, dtype=np.bool_)
    Tt = np.zeros(2, dtype=np.int64)  # the step that ended its episode
    P = np.zeros(2, dtype=np.int64)
    Q = np.zeros(2, dtype=np.int64)
    QS = np.zeros(2, dtype=np.int64)
    QO = np.zeros(2, dtype=np.int64)
    U = np.zeros(2)
    V = np.zeros(2)
    C = np.zeros(2)
    for w in range(m):
        live[w] = True
        if Xs[w].shape[0] == 0:
            live[w] = False
            diverged_at[b0 + w] = -1
            n_steps[b0 + w] = 0
    while live[0] or live[1]:
        for w in range(m):
            pend[w] = False
            if not live[w]:
                continue
            b = b0 + w
            R = ring[b]
            status, tt, u, pp, qq, qs, v = forward_td_episode(
                TH[b : b + 1], Xs[w], Xns[w], rs[w], ends[w], t[w], alpha[b], gamma[b], gl[b],
                g1l[b], Km1[b], c_final[b], gl_div[b], R, bound, recs[w], work[b], n, H, hh,
                d, RX[w, :R], RR[w, :R])
            if status == 1:  # diverged at step tt
                live[w] = False
                diverged_at[b] = ep[w]
                n_steps[b] = tt + 1
            elif status == 2:  # its steps ran out
                live[w] = False
                diverged_at[b] = -1
                n_steps[b] = Xs[w].shape[0]
            else:
                pend[w] = True
                Tt[w], U[w], P[w], Q[w], QS[w], V[w] = tt, u, pp, qq, qs, v
                for k in range(H):
                    hh2[w * H + k] = hh[H + k]
        # the flushes: each pop towards U, its update fused with the next pop's value
        for w in range(2):
            has[w] = pend[w] and P[w] > Q[w]
        while has[0] or has[1]:
            for w in range(2):
                if has[w]:
                    b = b0 + w
                    ok, C[w], QO[w], U[w], Q[w], QS[w] = flush_pop(
                        TH[b : b + 1], RX[w], RR[w], ring[b], U[w], P[w], Q[w], QS[w], V[w],
                        alpha[b], gl_div[b], bound, work[b])
                    if not ok:
                        has[w] = pend[w] = live[w] = False
                        diverged_at[b] = ep[w]
                        n_steps[b] = Tt[w] + 1
            if has[0] and has[1] and P[0] > Q[0] and P[1] > Q[1]:
                V[0], V[1] = update_value_pair(
                    TH[b0 : b0 + 1], RX[0, QO[0]], C[0], RX[0, QS[0]],
                    TH[b0 + 1 : b0 + 2], RX[1, QO[1]], C[1], RX[1, QS[1]], n, H, hh2)
            else:
                for w in range(2):
                    if has[w]:
                        b = b0 + w
                        h = hh2[w * H : (w + 1) * H]
                        if P[w] > Q[w]:
                            V[w] = update_value(TH[b : b + 1], RX[w, QO[w]], C[w],
                                                RX[w, QS[w]], n, H, h)
                        else:
                            update(TH[b : b + 1], 0, RX[w, QO[w]], n, H, h, d, C[w])
            for w in range(2):
                has[w] = has[w] and P[w] > Q[w]
        # the end of the episode: its weights checked and kept
        for w in range(m):
            if not pend[w]:
                continue
            b = b0 + w
            th = TH[b : b + 1]
            if recs[w].shape[0]:
                keep(recs[w][Tt[w]], th[0])
            if not ok_weights(th, bound):
                th[:] = 0.0
                live[w] = False
                diverged_at[b] = ep[w]
                n_steps[b] = Tt[w] + 1
                continue
            keep(EP_W[b, ep[w]], th[0])
            ep[w] += 1
            t[w] = Tt[w] + 1
            if t[w] >= Xs[w].shape[0]:
                live[w] = False
                diverged_at[b] = -1
                n_steps[b] = Xs[w].shape[0]


@njit(cache=True, error_model="numpy")
def _forward_rows(TH, tr, n, H, n_steps, alpha, gamma, gl, g1l, Km1, c_final, gl_div, ring,
                  bound, EP_W, REC, work, diverged_at):
    """Every row through forward TD(lambda), two at a time (:func:`_forward_pair`)."""
    for b0 in range(0, TH.shape[0], 2):
        _forward_pair(TH, tr, b0, min(2, TH.shape[0] - b0), n, H, n_steps, alpha, gamma, gl,
                      g1l, Km1, c_final, gl_div, ring, bound, EP_W, REC, work, diverged_at)


# The paper's network (Sec. 6: 2 inputs, 50 tanh units) has entry points of its own with
# those sizes as constants: LLVM inlines the passes into them and runs whole vectors without
# trip-count checks (the same operations, so the same numbers; about 1.8 times as fast as
# :func:`_td0_rows` and :func:`_forward_rows` with the sizes as arguments, which run any
# other sizes). Each is compiled on its first call, and cached.
@njit(cache=True, error_model="numpy")
def _td0_rows_paper(TH, tr, n_steps, alpha, gamma, bound, EP_W, REC, work, diverged_at):
    """:func:`_td0_rows` with n = 2, H = 50."""
    _td0_rows(TH, tr, 2, 50, n_steps, alpha, gamma, bound, EP_W, REC, work, diverged_at)


@njit(cache=True, error_model="numpy")
def _forward_rows_paper(TH, tr, n_steps, alpha, gamma, gl, g1l, Km1, c_final, gl_div, ring,
                        bound, EP_W, REC, work, diverged_at):
    """:func:`_forward_rows` with n = 2, H = 50."""
    _forward_rows(TH, tr, 2, 50, n_steps, alpha, gamma, gl, g1l, Km1, c_final, gl_div, ring,
                  bound, EP_W, REC, work, diverged_at)


def _run_rows(method, TH, tr, n, H, n_steps, settings, consts, bound, EP_W, REC, work,
              diverged_at):
    """Every row through the compiled loop of ``method`` (its entry point for these sizes);
    ``consts``: :func:`..schedule.algorithm1_constants` ``(K, c_final, gl_div, ring)``
    (forward TD only)."""
    f64 = np.float64
    alpha, gamma = settings.alpha.astype(f64), settings.gamma.astype(f64)
    paper = (n, H) == (2, 50)
    if method == "td0":
        args = (n_steps, alpha, gamma, bound, EP_W, REC, work, diverged_at)
        if paper:
            return _td0_rows_paper(TH, tr, *args)
        return _td0_rows(TH, tr, n, H, *args)
    K, c_final, gl_div, ring = consts
    args = (n_steps, alpha, gamma, (settings.gamma * settings.lam).astype(f64),
            (settings.gamma * (1.0 - settings.lam)).astype(f64), (K - 1).astype(np.int64),
            c_final.astype(f64), gl_div.astype(f64), ring.astype(np.int64), bound, EP_W, REC,
            work, diverged_at)
    if paper:
        return _forward_rows_paper(TH, tr, *args)
    return _forward_rows(TH, tr, n, H, *args)


def run_source(method, settings, w0, source, *, evaluator=None, record_weights=True,
               div_bound=1e6, n_hidden=50):
    r"""Every row of a :class:`..sources.RecordedSource` through the compiled loop of
    ``method`` (:data:`PREDICTION_RUNS`), one after another; a
    :class:`..results.PredictionResult` with the batch's numbers (``iterations``: one pass
    of a loop per step, the run-steps; ``work`` ``(B, 2)``: per row, the values and the
    updates computed)."""
    import torch

    from .._net import BatchedMLP
    from ..results import PredictionResult
    from ..schedule import algorithm1_constants

    if method not in PREDICTION_RUNS:
        raise ValueError(f"the kernel runs the prediction methods {PREDICTION_RUNS}, got "
                         f"{method!r}")
    B, n = source.B, source.n_in
    net = BatchedMLP(n, n_hidden)
    w0 = np.asarray(w0, dtype=np.float64)
    if w0.ndim == 1:
        w0 = np.broadcast_to(w0, (B, w0.shape[0]))
    P = net.n_params
    if w0.shape != (B, P):
        raise ValueError(f"w0 must have shape ({B}, {P}), got {w0.shape}")
    tr = np.asarray(source.tr, dtype=np.float64).reshape(2 * n + 4, B, source.L)
    n_ep = source.n_episodes
    max_ep = int(n_ep.max()) if B else 0
    TH = np.ascontiguousarray(w0[:, net.perm])
    EP_W = np.full((B, max(max_ep, 1), P), np.nan)
    T_max = int(source.n_steps.max()) if B and record_weights else 0
    REC = np.full((B, T_max, P), np.nan)
    diverged_at = np.full(B, -1, dtype=np.int64)
    n_steps = source.n_steps.astype(np.int64).copy()
    work = np.zeros((B, 2), dtype=np.int64)
    consts = None
    if method == "forward_td_lambda":
        consts = algorithm1_constants(settings, int(source.t_cap))
    _run_rows(method, TH, tr, n, (P - 1) // (n + 2), n_steps, settings, consts,
              float(div_bound), EP_W, REC, work, diverged_at)
    weights = None
    if record_weights:
        weights = [REC[b, : source.n_steps[b]][:, net.inv_perm] for b in range(B)]
    diverged = diverged_at >= 0
    errors = err0 = None
    if evaluator is not None:  # the errors of the episodes' end weights, as the batch's
        err0 = evaluator.rms(net, net.to_internal(w0))
        errors = np.full((B, max_ep), np.nan)
        for e in range(max_ep):
            done = (n_ep > e) & ~(diverged & (diverged_at <= e))
            if done.any():
                cols = torch.as_tensor(np.ascontiguousarray(EP_W[done, e].T))
                errors[done, e] = evaluator.rms(net, cols) / err0[done]
        for b in np.flatnonzero(diverged):
            errors[b, diverged_at[b] : n_ep[b]] = np.inf
    return PredictionResult(
        curves=errors, initial_error=err0, diverged=diverged, diverged_at=diverged_at,
        weights=weights, final_weights=TH[:, net.inv_perm], n_steps=n_steps,
        iterations=int(n_steps.sum()), method=method, settings=settings, work=work)
