r"""The batched forward TD(:math:`\lambda`) loop (paper Sec. 5, Algorithm 1): every row its
own K, FIFO and ``U, U_sync, c, i, ready``; two value slots an iteration, so that a row needs
about one iteration per step whatever K. The readable per-run form:
:func:`ftd_lib.algorithms.forward_td_lambda`.
"""

from __future__ import annotations

import numpy as np

from .schedule import DONE, FLUSH, STEP, algorithm1_constants


class ForwardTDLoop:
    """A mixin of :class:`.prediction.PredictionBatch`: its forward TD(:math:`\\lambda`)
    loop."""

    def _loop_forward(self):
        r"""Forward TD(:math:`\lambda`), Algorithm 1, every row its own K (from
        :func:`ftd_lib.returns.k_bound`), its own FIFO (a ring buffer of the batch's largest
        K), its own ``U, U_sync, c, i, ready``.

        An iteration has two value slots: A evaluates :math:`\hat V(S'|\theta)` of a step,
        B the popped state of the step's update. Where one of them would idle, it does the
        row's next piece of work instead, so that a row needs about one iteration per step
        whatever K (the other rows never wait):

        - during the first K-1 steps of an episode no update happens, so the weights are the
          same for two consecutive steps: the row takes *two* environment steps, B evaluating
          the second one's :math:`\hat V(S''|\theta)`;
        - at the end of an episode the row pops (``FLUSH``) *two* updates an iteration, one
          in each slot (A's update first, B evaluates with the updated weights).
        """
        B, net, th, src, npdt = self.B, self.net, self.th, self.src, self.npdt
        n = net.n_in
        K_eff, c_final, gl_div, ring_len = algorithm1_constants(self.settings, int(src.t_cap),
                                                                npdt)
        R = int(ring_len.max()) if B else 1
        Km1 = K_eff - 1
        Km2 = K_eff - 2
        self.ring_size = R
        ring = np.zeros((n + 2, B * R), dtype=npdt)  # columns: <[phi(S); 1], rho>
        rows = list(ring)
        base = np.arange(B) * R
        U = np.zeros(B, dtype=npdt)
        U_sync, V_cur = U.copy(), U.copy()
        c = np.ones(B, dtype=npdt)
        i = np.zeros(B, dtype=np.int64)
        p, q = i.copy(), i.copy()
        ready = np.zeros(B, dtype=bool)
        Vw, wA, wB = net.views(th), net.work(B), net.work(B)
        alpha, gamma, gl = self.alpha, self.gamma, self.gl
        g1l = (self.settings.gamma * (1.0 - self.settings.lam)).astype(npdt)
        mode = self.mode
        rec = self.record_weights
        bound = self.div_bound
        # iterations that did slot A's extra update (a row flushing) or a second environment
        # step (a row double-stepping): each costs the whole batch's width
        self.loop_counts = counts = {"flush": 0, "double": 0}
        while self.n_running:
            self.iterations += 1
            step = mode == STEP
            flush = mode == FLUSH
            n_flush = self.double_pops and flush.any()
            counts["flush"] += bool(n_flush)
            x, r, xn, end = src.next(step)
            # rows whose this and next step are both update-free take both now
            if self.double_steps:
                dbl = step & ~end & ~ready & (i < Km2)
                two = dbl.any()
            else:
                two = False
            counts["double"] += bool(two)
            if two:
                x2, r2, xn2, end2 = src.next(dbl)
            # ---- slot A: V(S'|theta) of the stepping rows; first pop of the flushing rows
            if n_flush:
                itA = np.take(ring, base + q % R, axis=1)
                xA = np.where(flush, itA[: n + 1], xn)
                vA = net.value(Vw, self._t(xA), wA)
                self._upd(Vw, xA, wA, np.where(flush, alpha * (U - vA), 0.0))
                q += flush
                U = np.where(flush, (U - itA[n + 1]) / gl_div, U)
            else:
                vA = net.value(Vw, self._t(xn), wA)
            # observe R, S'; V_next = V(S'|theta), 0 if S' is terminal
            v_next = np.where(step & ~end, vA, 0.0)
            # push <phi(S), rho>, rho = R + gamma (1 - lambda) V_next (a non-stepping row
            # writes into a slot it does not use)
            slot = base + p % R
            for j in range(n + 1):  # (1-d fancy sets are faster than one 2-d set)
                rows[j][slot] = x[j]
            rows[n + 1][slot] = r + g1l * v_next
            p += step
            # delta' = R + gamma V_next - V_current; V_current = V_next
            # (V_current, U_sync, i, c of a row that does not step are not read before its
            # episode's end resets them: no masks needed for them)
            d_prime = r + gamma * v_next - V_cur
            V_cur = v_next
            # if i = K - 1: U = U_sync; U_sync = V_current; i = 0; c = 1; ready = true
            # else:         U_sync += c delta'; i += 1; c *= gamma lambda
            sync = step & (i == Km1)
            U = np.where(sync, U_sync, U)
            U_sync = np.where(sync, V_cur, U_sync + c * d_prime)
            i += 1
            i[sync] = 0
            c = np.where(sync, 1.0, gl * c).astype(npdt, copy=False)
            ready |= sync
            # if ready: U += c_final delta'; pop <S_p, rho_p>; update theta; U = (U-rho_p)/gl
            step_upd = step & ready
            U = np.where(step_upd, U + c_final * d_prime, U)
            # ---- slot B: the step's pop, a flushing row's second pop, or V(S'') of a
            # double step
            upd = step_upd | (flush & (p > q))
            itB = np.take(ring, base + q % R, axis=1)
            xB = np.where(dbl, xn2, itB[: n + 1]) if two else itB[: n + 1]
            vB = net.value(Vw, self._t(xB), wB)
            self._upd(Vw, xB, wB, np.where(upd, alpha * (U - vB), 0.0))
            q += upd
            U = np.where(upd, (U - itB[n + 1]) / gl_div, U)
            # end of the episode: if not ready, U = U_sync; then flush the FIFO
            end_step = step & end
            U = np.where(end_step & ~ready, U_sync, U)
            self.n_steps += step
            if rec:
                self._record(step & ~end)
            if not max(np.abs(vA).max(), np.abs(vB).max()) <= bound:  # rare: find the rows
                self._check_values(np.maximum(np.abs(vA), np.abs(vB)))
            if two:
                # the second step of the double-stepping rows (no sync, no update possible)
                v2 = np.where(end2, 0.0, vB)
                slot = base + p % R
                for j in range(n + 1):
                    rows[j][slot] = x2[j]
                rows[n + 1][slot] = r2 + g1l * v2
                p += dbl
                d2 = r2 + gamma * v2 - V_cur
                V_cur = np.where(dbl, v2, V_cur)
                U_sync = np.where(dbl, U_sync + c * d2, U_sync)
                i += dbl
                c = np.where(dbl, gl * c, c).astype(npdt, copy=False)
                e2 = dbl & end2
                U = np.where(e2, U_sync, U)
                end_step |= e2
                self.n_steps += dbl
                if rec:
                    self._record(dbl & ~end2)
            empty = p == q
            if self.frozen_now:  # not a row frozen in this iteration
                end_step &= mode != DONE
                flush &= mode != DONE
                self.frozen_now = False
            mode[end_step & ~empty] = FLUSH
            comp = (end_step | flush) & empty
            if comp.any():
                if rec:
                    self._record(comp)
                ii = self._complete(comp)
                mode[ii[mode[ii] == FLUSH]] = STEP
                U[ii] = U_sync[ii] = V_cur[ii] = 0.0
                c[ii] = 1.0
                i[ii] = p[ii] = q[ii] = 0
                ready[ii] = False
