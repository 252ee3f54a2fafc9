r"""Notebook 07: from forward TD(:math:`\lambda`) to the :math:`\lambda`-returns of modern deep RL.

GAE (Schulman et al. 2016), PPO's advantage estimate (A2C's usual one is its λ = 1 case, the
n-step return to the rollout's end), is the paper's interim
:math:`\lambda`-return (eq. 2) with the horizon fixed at the end of a rollout of B steps and the
values frozen during it (:func:`ftd_lib.returns.gae`); forward TD(:math:`\lambda`) uses the same
return with the horizon sliding K steps ahead (Sec. 5). This module holds what the notebook
computes: GAE checked on mountain car data, the weight each target puts on bootstrapping at its
horizon, a PPO setting in the paper's terms, the block-:math:`\lambda`-return experiment (GAE
targets, one SGD pass; live and stored, and how the two relate) and the delayed-update picture
beside a DQN-style target network.
"""

from __future__ import annotations

import math

import numpy as np

from ..algorithms import forward_td_lambda
from ..approx import MLP
from ..envs.mountain_car import record_episodes
from ..methods import label
from ..returns import gae, k_bound, rollout_returns_by_definition
from ..rng import run_generator
from ..style import legend_off_data

#: the paper's sentences about DQN, verbatim from the .tex (Sec. 6 and the conclusions;
#: ``\citep{mnih:nature15}`` written out as "(Mnih et al. 2015)")
PAPER_ON_DQN = (
    "Surprisingly, forward TD($\\lambda$) outperforms the online $\\lambda$-return algorithm. "
    "That delaying updates results in better performance in this case is probably related to "
    "the reason that the DQN algorithm uses a separate target network that is updated in a "
    "delayed way (Mnih et al. 2015). Most likely because it reduces instability.",
    "This surprising result is likely related to the same reason that DQN uses a separate "
    "target network that is updated in a delayed way and is an interesting topic for future "
    "research.",
)

#: a typical PPO setting (e.g. Stable-Baselines3's and cleanrl's defaults)
PPO = dict(gamma=0.99, lam=0.95)


# ------------------------------------------------------------------- 1. GAE on data


def rollout_from_episodes(episodes, T: int):
    """The first ``T`` steps of consecutive episodes as one rollout, as PPO collects it:
    ``features (T+1, n)`` (row T: the state where the rollout was cut), ``rewards (T,)`` and
    ``terminals (T,)`` (1 where the step ended an episode)."""
    xs, rs, ds = [], [], []
    for x, r in episodes:
        n = len(r)
        xs.append(x[:-1])
        rs.append(r)
        d = np.zeros(n)
        d[-1] = 1.0
        ds.append(d)
        if sum(len(a) for a in rs) > T:
            break
    X = np.concatenate(xs)
    if len(X) <= T:
        raise ValueError(f"T must be below the episodes' total length {len(X)}, got {T}")
    return X[: T + 1], np.concatenate(rs)[:T], np.concatenate(ds)[:T]


def gae_on_data(seed: int = 2016, T: int = 160, lam: float = 0.9, gamma: float = 1.0,
                warmup_episodes: int = 3) -> dict:
    r"""GAE against eq. 2 on mountain car data: a rollout of ``T`` steps across an episode's
    end, values from a 2-50-1 network trained by forward TD(:math:`\lambda`) for
    ``warmup_episodes`` episodes (so that the values are not a flat start), frozen.

    Returns the rollout, the advantages, :math:`G_t^{\lambda|h}` by definition and the largest
    difference between ``A + V`` and it."""
    eps = record_episodes(seed, 0, warmup_episodes + 3)
    net = MLP(2, 50)
    w0 = net.init(run_generator(seed, 0, 100))
    w = forward_td_lambda(eps[:warmup_episodes], w0, approx=net, alpha=0.01, lam=lam,
                          gamma=gamma)[-1]
    X, r, d = rollout_from_episodes(eps[warmup_episodes:], T)
    v = np.asarray(net.value(w, X), dtype=float)
    if d[-1]:  # the cut falls on an episode's end: the bootstrap is a terminal state's
        v[-1] = 0.0
    adv = gae(r, v, gamma, lam, terminals=d)
    G = rollout_returns_by_definition(r, v, gamma, lam, terminals=d)
    return dict(T=T, rewards=r, values=v, terminals=d, advantages=adv, returns=G,
                ends=np.flatnonzero(d), max_difference=float(np.abs(adv + v[:-1] - G).max()))


# ------------------------------------------------------- 2. sliding window against block


def cut_weights(gamma: float, lam: float, *, eta: float = 0.01, block: int = 128,
                n: int = 384) -> dict:
    r"""State by state along a long episode (no end in view), the distance to the horizon of
    each target and the weight :math:`(\gamma\lambda)^{h-t}` that it gives to bootstrapping
    at the horizon in place of the rewards beyond it -- the quantity the paper bounds by
    :math:`\eta` (Sec. 5: "the contribution of a reward K time steps in the future is only
    :math:`(\gamma\lambda)^K`").

    Forward TD(:math:`\lambda`): :math:`h - t = K` for every state (a sliding window), weight
    :math:`(\gamma\lambda)^K \le \eta`. Block (GAE over rollouts of B steps): :math:`h - t =
    B - (t \bmod B)`, from B at a rollout's first state down to 1 at its last (a one-step,
    TD(0) target). Returns ``t``, ``K``, ``dist_sliding``, ``dist_block``,
    ``w_sliding``, ``w_block``."""
    gl = gamma * lam
    K = k_bound(gamma, lam, eta)
    if math.isinf(K):
        raise ValueError("gamma * lam must be below 1 (K is infinite otherwise)")
    t = np.arange(int(n))
    d_slide = np.full(len(t), int(K))
    d_block = block - t % block
    return dict(t=t, K=int(K), eta=eta, block=block, gamma=gamma, lam=lam,
                dist_sliding=d_slide, dist_block=d_block,
                w_sliding=gl ** d_slide.astype(float), w_block=gl ** d_block.astype(float))


def plot_cut_weights(gamma: float = PPO["gamma"], lam: float = PPO["lam"], *,
                     eta: float = 0.01, block: int = 128, n: int = 384,
                     figsize=(9.0, 3.8)):
    """:func:`cut_weights` drawn: the weight on the horizon's bootstrap, state by state, for
    the sliding window and the block (log scale, :math:`\\eta` marked); ``figsize`` in inches."""
    from ..style import OKABE_ITO, new_axes

    c = cut_weights(gamma, lam, eta=eta, block=block, n=n)
    fig, ax = new_axes(title=f"Weight on bootstrapping at the horizon, γ = {gamma:g}, "
                       f"λ = {lam:g}", xlabel="time step t of a long episode",
                       ylabel=r"$(\gamma\lambda)^{h-t}$", figsize=figsize)
    ax.step(c["t"], c["w_block"], where="post", color=OKABE_ITO["orange"], ls="--",
            label=f"block (GAE), B = {block}")
    ax.plot(c["t"], c["w_sliding"], color=OKABE_ITO["blue"],
            label=f"forward TD(λ), K = {c['K']}")
    ax.axhline(eta, color="0.4", lw=1, ls=":", label=f"η = {eta:g}")
    ax.set_yscale("log")
    ax.legend(loc="lower left", fontsize=13)
    fig.tight_layout()
    legend_off_data(ax.figure, [ax])
    return fig, ax


def ppo_in_paper_terms(gamma: float = PPO["gamma"], lam: float = PPO["lam"],
                       blocks=(128, 2048), eta: float = 0.01) -> list[dict]:
    r"""A PPO setting in the paper's terms, one row per rollout length B: the K that
    :math:`\eta` gives (Sec. 5, eq. 5), the weight on the horizon's bootstrap at a rollout's
    first state, :math:`(\gamma\lambda)^B` (the :math:`\eta` it meets) and at its last,
    :math:`\gamma\lambda`; the share of the rollout's states whose target meets :math:`\eta`
    (:math:`h - t \ge K`), and the mean of :math:`(\gamma\lambda)^{h-t}` over the rollout."""
    gl = gamma * lam
    K = int(k_bound(gamma, lam, eta))
    out = []
    for B in blocks:
        d = np.arange(1, B + 1)
        w = gl ** d.astype(float)
        out.append(dict(B=int(B), gamma=gamma, lam=lam, gl=gl, eta=eta, K=K,
                        eta_first=float(gl**B), eta_last=float(gl),
                        share_meeting_eta=float(np.mean(d >= K)), mean_weight=float(w.mean()),
                        lookahead_full=1.0 / (1.0 - gl)))
    return out


def ppo_markdown(rows) -> str:
    """:func:`ppo_in_paper_terms` as a Markdown table."""
    lines = ["| B | γλ | K for η = 0.01 | (γλ)^B, first state | γλ, last state | "
             "states with (γλ)^(h−t) ≤ η | mean (γλ)^(h−t) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['B']} | {r['gl']:.4f} | {r['K']} | {r['eta_first']:.2g} | "
                     f"{r['eta_last']:.3f} | {100 * r['share_meeting_eta']:.0f} % | "
                     f"{r['mean_weight']:.3f} |")
    return "\n".join(lines)


# ------------------------------------------------------- 3. the block experiment


def stored_reading(results=None, table_only: bool = False) -> str:
    """The stored ``block-lambda`` study's computed reading (Markdown, from
    :func:`ftd_lib.repro.paper.block_study.reading`), or the command that makes it (``table_only``:
    its table alone, for the slide)."""
    from ..repro.paper.block_study import reading
    from ..repro.results import missing_message, scale_label
    from .live import stored

    res = stored("block-lambda", results)
    if res is None:
        return missing_message("block-lambda")
    lines = reading(res)
    if table_only:
        return "\n".join(line for line in lines if line.startswith("|"))
    return f"*Stored: {scale_label(res)}.*\n\n" + "\n".join(lines)


def live_against_stored(comparison) -> dict:
    r"""The live block-:math:`\lambda` run beside the stored one, measured alike: per curve the
    lowest mean error over the live run's step sizes, live (``live``, its few runs and
    episodes) and stored over the same first episodes (``stored_first``, from the stored
    per-episode means ``curve_mean``), and the stored verdict's number (``stored``, the mean
    over all stored episodes at the best α of the whole grid). ``comparison``: the
    :func:`ftd_lib.course.live.compare` result. Returns ``episodes`` (live, stored) and
    ``rows``."""
    live, res = comparison.live, comparison.stored
    if res is None:
        raise ValueError("comparison has no stored data to set the live run against")
    e = int(live.meta["episodes"])
    la, sa = live.arrays, res.arrays
    first = sa["curve_mean"][:, :e].mean(axis=1)
    live_mean = live.cell_stats()["mean"]
    rows = []
    for curve, s in res.summary().items():
        li = [i for i in np.flatnonzero(la["curve"] == curve) if np.isfinite(live_mean[i])]
        si = [i for i in np.flatnonzero(sa["curve"] == curve)
              if np.isclose(sa["alpha"][i], la["alpha"][li]).any()] if li else []
        rows.append(dict(curve=curve,
                         live=float(np.min(live_mean[li])) if li else math.nan,
                         stored_first=float(np.nanmin(first[si])) if si else math.nan,
                         stored=float(np.nanmin(s["y"]))))
    return dict(episodes=(e, int(res.meta["episodes"])), rows=rows)


def live_against_stored_markdown(table: dict) -> str:
    """:func:`live_against_stored` as a Markdown table and the sentence that relates the live
    run to the stored verdict (which curve each column ranks first)."""
    e, n = table["episodes"]
    rows = table["rows"]
    out = [f"| curve | live, {e} episodes | stored, first {e} | stored, all {n}: verdict |",
           "| --- | --- | --- | --- |"]
    for r in rows:
        out.append(f"| {label(r['curve'])} | {r['live']:.3f} | {r['stored_first']:.3f} | "
                   f"{r['stored']:.3f} |")

    def top(key):
        return label(min(rows, key=lambda r: (r[key] if np.isfinite(r[key]) else math.inf))
                     ["curve"])

    out += ["", f"Lowest: live {top('live')}; stored, first {e}: {top('stored_first')}; "
            f"stored, all {n}: **{top('stored')}**. "
            + (f"Live agrees with the stored runs over its {e} episodes"
               if top("live") == top("stored_first") else
               f"Live and stored differ even over the first {e} episodes (few runs)")
            + f"; the verdict is about all {n}, where the ranking "
            + ("is the same." if top("stored_first") == top("stored") else "changes.")]
    return "\n".join(out)


# ------------------------------------------------------- 4. target networks


def target_ages(n: int = 160, *, K: int = 44, C: int = 40, B: int = 16) -> dict:
    r"""How stale the values are that a target bootstraps from: for the u-th update, how
    many updates the weights have had since the weights that computed those values.

    - forward TD(:math:`\lambda`) (one update a step, K steps late): the target of
      :math:`S_t` bootstraps from :math:`\hat V(S_j|\theta_{j-1})`, j = t+1 .. t+K, each
      computed when :math:`S_j` was reached: ages 0 .. K-1 in *every* target (a band);
    - a DQN-style target network copied every C updates: age u mod C (a saw-tooth);
    - block :math:`\lambda`-return (GAE targets, one SGD pass): B updates in a burst at the
      block's end, all with values of the weights from the block's start: the k-th has age
      k, 0 .. B-1 (a saw-tooth too: in update counts, a block is a target network refreshed
      every B updates).

    Returns ``u`` and, per method, the smallest and largest age of each update."""
    u = np.arange(int(n))
    return dict(u=u, K=K, C=C, B=B,
                forward=(np.zeros(len(u)), np.full(len(u), K - 1.0)),
                target_net=(u % C, u % C), block=(u % B, u % B))


def plot_target_ages(n: int = 160, *, K: int = 44, C: int = 40, B: int = 16,
                     figsize=(9.0, 3.6)):
    """:func:`target_ages` as one small picture (``figsize`` in inches)."""
    from ..style import OKABE_ITO, new_axes

    a = target_ages(n, K=K, C=C, B=B)
    fig, ax = new_axes(title="How stale are the values a target bootstraps from?",
                       xlabel="update number u", ylabel="age (updates since)",
                       figsize=figsize)
    lo, hi = a["forward"]
    ax.fill_between(a["u"], lo, hi, color=OKABE_ITO["blue"], alpha=0.25,
                    label=f"forward TD(λ): every target mixes ages 0 .. K−1 (K = {K})")
    ax.step(a["u"], a["target_net"][0], where="post", color=OKABE_ITO["vermillion"],
            label=f"DQN target network, copied every C = {C} updates")
    ax.step(a["u"], a["block"][0], where="post", color=OKABE_ITO["orange"], ls="--",
            label=f"block λ-return (GAE targets), B = {B}")
    ax.set_ylim(-2, max(K, C, B) * 1.6)
    ax.legend(loc="upper left", fontsize=13)
    fig.tight_layout()
    legend_off_data(ax.figure, [ax])
    return fig, ax
