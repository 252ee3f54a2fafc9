r"""A bridge to Sutton & Barto: the paper's notation against the book the students know,
*Reinforcement Learning: An Introduction* (2nd ed., 2018), chapter 12 (section numbers of
that edition). Notebook 02 shows the table at its start (section 0); notebook 04 and
``INSTRUCTORS.md`` refer to it.
"""

from __future__ import annotations

#: (the paper, Sutton & Barto 2nd ed., the book's section, where in this course)
GLOSSARY = (
    (r"weights $\theta$, value $\hat V(s \mid \theta)$", r"$\mathbf w$, $\hat v(s, \mathbf w)$",
     "§9.1, §12", "01"),
    (r"general TD update, eq. (1), target $U_t$",
     r"semi-gradient update toward a target $U_t$", "§9.3", "01"),
    (r"eligibility trace $e_t$", r"eligibility trace $\mathbf z_t$", "§12.2", "02"),
    (r"TD error $\delta_t$", r"TD error $\delta_t$", "§12.2", "02"),
    (r"$n$-step return $G_t^{(n)}$ (bootstraps from $\theta_{t+n-1}$)",
     r"$n$-step return $G_{t:t+n}$ (bootstraps from $\mathbf w_{t+n-1}$)",
     "§12.1, eq. 12.1 (also eq. 9.16)", "02"),
    (r"interim λ-return $G_t^{\lambda\mid h}$, eq. (2)", r"truncated λ-return $G^\lambda_{t:h}$",
     "§12.3", "02"),
    (r"$G_t^{\lambda\mid T}$ (horizon at the episode's end)", r"λ-return $G^\lambda_t$", "§12.1",
     "02"),
    ("offline λ-return algorithm", "offline λ-return algorithm", "§12.1", "02"),
    ("TD(λ) (accumulating traces)", "semi-gradient TD(λ)", "§12.2", "02, 03"),
    (r"online λ-return algorithm, eq. (3), weights $\theta^t_k$",
     r"online λ-return algorithm, weights $\mathbf w^h_t$", "§12.4", "02"),
    ("true online TD(λ) (linear only; the paper's Sec. 2)", "true online TD(λ), dutch traces",
     "§12.5", "02"),
    ("replacing traces (Sec. 1; binary features)", "replacing traces", "§12.5", "03"),
    (r"forward TD(λ): update toward the K-bounded $G_t^{\lambda\mid t+K}$",
     r"truncated TD(λ), TTD(λ), with $n = K$: target $G^\lambda_{t:t+n}$", "§12.3", "04"),
    (r"$\delta'_t = R_{t+1} + \gamma\hat V(S_{t+1} \mid \theta_t) - \hat V(S_t \mid \theta_{t-1})$",
     r"$\delta'_t$, the same, in the efficient form of $G^\lambda_{t:t+k}$", "§12.3", "04"),
    ("Sarsa(λ), one network per action", "Sarsa(λ)", "§12.7", "06"),
    ("forward Sarsa(λ)", "truncated Sarsa(λ) (the book cites this paper)", "§12.7", "06"),
)


def glossary_markdown(rows=None) -> str:
    """The glossary as a Markdown table: all of it, or the rows of :data:`GLOSSARY` whose
    indices ``rows`` lists (a range or a list, in order), so that a slide can show a part."""
    if rows is None:
        rows = range(len(GLOSSARY))
    rows = list(rows)
    if not rows or any(not isinstance(i, int) or not 0 <= i < len(GLOSSARY) for i in rows):
        raise ValueError(f"rows must be indices 0..{len(GLOSSARY) - 1} of GLOSSARY, got {rows!r}")
    out = ["| the paper (van Seijen 2016) | Sutton & Barto (2nd ed.) | book | notebook |",
           "| --- | --- | --- | --- |"]
    out += ["| {} | {} | {} | {} |".format(*GLOSSARY[i]) for i in rows]
    return "\n".join(out)
