"""INSTRUCTORS.md's row of every exercise, by its key: (what it asks, what its check tests, the
usual wrong answers and what they reveal), Markdown. ``python -m ftd_lib.publish.lecture_plan
--write`` writes them into the page (:mod:`.exercise_table`).

The rows state most answers and every slip a check looks for, so they live here, with the
instructors' tooling, not beside the checks: the students' copy of the course leaves this
module out (:data:`.release.INSTRUCTORS_LIBRARY`).
"""

ROWS = {
    # notebook 01

    "nb01.discounted_return": (
        "a discounted return",
        "$G_0$ of the student's episode (4–7 rewards from −1 to 3, γ ∈ {0.8 … 0.95}; "
        "without an id five rewards 1, γ = 0.9), to 1e-4; one message per usual slip; "
        "`discounted_return(...)` in the answer cell refused",
        "γ·G₀: the first reward discounted too; the undiscounted sum; the powers "
        "backwards; the last reward's weight alone; a term too few; with equal rewards "
        "the infinite series R/(1−γ) or a term too many; a list `[G₀]` (told: one number)"),
    "nb01.bellman_row": (
        "one row of the Bellman equation",
        "v(1) of the student's walk (left with probability `p_left`, its v(2) given): "
        r"$v(1) = 1 + (1-p)\,v(2)$; without an id p = 0.6",
        "`v_true[0]` / `rw.true_values()[0]` (the paper's walk, named; `v_true`, "
        "`true_values`, `solve` in the cell refused); (1−p)·v(2) alone: the reward "
        "forgotten; 1 + p·v(2): the probabilities swapped"),
    "nb01.td0_update": (
        "one TD(0) update by hand",
        r"one TD(0) update with the student's V(s), V(s′), α, γ: target $R + \gamma "
        "V(S')$, step α times the error",
        "the target itself (told); the sign of the error flipped"),
    # notebook 02

    "nb02.n_step_return": (
        "an n-step return",
        "$G_0^{(2)}$ of the student's three-step episode: two discounted rewards, then "
        r"$\gamma^2$ times the value of $S_2$",
        "the value of S₂ discounted once (told); the one-step return; the rewards alone; "
        "`n_step_return(...)` and the other return helpers in the cell refused"),
    "nb02.interim_lambda_return": (
        "an interim λ-return",
        r"$G_0^{\lambda\|3}$ by eq. (2) with the student's λ, the remaining weight "
        r"$\lambda^{h-t-1}$ on the longest return",
        "weight (1−λ)λ² on G^(3) (told); equal weights; the return helpers refused"),
    "nb02.build_td_lambda": (
        "**build**: TD(λ) with traces, and a point of Figure 1",
        "after section 4 (traces); the student's `my_td_lambda` against "
        "`algorithms.td_lambda` after every step, in three settings (Fig. 1's λ = γ = 1; "
        "λ = 0.5, γ = 0.9; λ = 0), 3 episodes each, to 1e-10; then the normalised RMS "
        "error of *their* TD(λ) on Figure 1's episodes with *their* α at the end of "
        "*their* episode (without an id: α = 0.2, episode 1, Figure 1's own point); "
        "`td_lambda` run inside, or pasted in, is refused",
        'rows that are one array (`w += …; out.append(w)`: told "all your rows are the '
        'same array: append a copy"); trace not decayed: fails λ = 0.5 and λ = 0; trace '
        "not reset per episode: fails from episode 2 (named); the paper's Figure 1 digits"
        " with an id (named); `figure1_episode_ends(...)` in the cell refused; "
        "`fig1_point` without θ₀ prepended"),
    # notebook 03

    "nb03.beta_td_lambda": (
        "**derive**: β of TD(λ) for λ < 1",
        "the student's closed form `my_beta(alpha, lam, T)` at six (α, λ, T) against runs"
        " of `algorithms.td_lambda` (to 1e-9); the usual wrong forms get their own "
        "message; a function that runs TD(λ) to measure β (any name), or a copy of "
        "`beta_run`, is refused",
        "αT (λ = 1's β); α/(1−λ) (the infinite sum); α(1−λ^(T±1))/(1−λ) (a term too many "
        "or too few); 1−(1−α)^T (the λ-return algorithm's β)"),
    "nb03.divergence_edge": (
        "the edge of divergence for λ < 1",
        "α with β = 2 at the student's λ and T, measured from a run: 2(1−λ)/(1−λ^T) "
        "(0.2155 at the paper's λ = 0.9, T = 25); rounded answers are told not to round",
        "2/T: λ = 1's edge; 2(1−λ): the T → ∞ limit"),
    "nb03.beta_two": (
        "V₀ = 1 and β = 2",
        "(a) V₀ = 1 is a fixed point (error 0); (b) at β = αT = 2 (the student's α, T, V₀"
        " and number of episodes) the error flips sign: $V_n = 1 - (-1)^n(1 - V_0)$",
        "(a) 'α too small to move'; (b) values that grow (β > 2); "
        "`values_per_episode(...)` in the cell refused"),
    "nb03.replacing_traces": (
        "β with replacing traces",
        "β = α for TD(1) with replacing traces at the student's α and T, checked against "
        "a run of replacing traces (no longer named beside the exercise)",
        "αT: the accumulating trace (told); 1 − (1−α)^T: the λ-return algorithm's β; "
        "`td_lambda_replacing(...)` in the cell refused"),
    # notebook 04

    "nb04.rho_recursion": (
        "**derive**: the ρ-recursion of App. B",
        "asked at the end of §2, before §3's listing shows line 13: the student's "
        r"`my_rho(reward, v_next, gamma, lam)` through the identity $G_{t+1}^{\lambda\|h} "
        r"= (G_t^{\lambda\|h} - \rho_t)/\gamma\lambda$, against eq. (2) at every $t < h-1$"
        " of an episode for three (γ, λ)",
        "R + γV̂ (the TD target: the (1 − λ) forgotten); R + γλV̂; R alone"),
    "nb04.build_algorithm1": (
        "**build**: Algorithm 1",
        "the student's `my_forward_td_lambda` (a skeleton with the queue, U, U_sync, c, "
        "δ′ is given) against Sec. 5's definition after every step (to 1e-10) in five "
        "cases: K = 4; γ < 1 (K = 15); K = 44 with most episodes shorter than K; K = 1 (λ"
        " = η); γλ = 1 with `k_max = 5`. A failing case names the step where the weights "
        "part and where that step is in Algorithm 1; the library's Algorithm 1 run inside"
        " (any name) or pasted in is refused",
        'rows that are one array (`w += …`: told "all your rows are the same array", not '
        "blamed on the queue); weights that never move (a skeleton half filled: told); "
        'the skeleton\'s `out[-1] = w` deleted (told: "only the last row of an episode '
        'differs … out[-1] = w", not blamed on the flush); `U ← U_sync` missing when the '
        "queue never filled; c_final = (γλ)^K; a ρ-step at K = 1; δ′ from a fresh "
        "V̂(S_t); γ forgotten in ρ or δ′"),
    "nb04.next_bounded_return": (
        "the next K-bounded return",
        r"$(U-\rho)/\gamma\lambda + (\gamma\lambda)^{K-1}\delta'$ with the student's U, ρ,"
        " δ′, γ, λ, K, in Algorithm 1's order; one message per usual slip",
        "the horizon step forgotten; weight (γλ)^(K−2); the horizon step without the "
        "ρ-step; the ρ-step multiplied by γλ (each told)"),
    "nb04.first_update": (
        "the first update",
        "for the student's λ, γ, η: the loop pass t = K − 1 makes the first update, which"
        " produces θ_K (the stepper shows the paper's λ = 0.5, η = 0.1; an id's numbers "
        "differ)",
        "t = K (told: t counts from 0); θ_{K−1}: the pass index taken for the weights"),
    "nb04.horizon_extension": (
        "the horizon-extension identity (derive)",
        r"on the student's episode: $G_0^{\lambda\|h}$ by eq. (2), $\delta'_h$, and "
        r"$G_0^{\lambda\|h+1}$ by the identity, compared with eq. (2)",
        r"δ′ with V(S_h\|θ_h) (the TD error); weight λ^(h−t) without γ^(h−t)"),
    "nb04.k1_is_td0": (
        "K = 1 is TD(0) (derive)",
        "(a) the largest λ with K = 1 for the student's η and γ: η/γ; (b) the target of "
        r"the first update from the given R₁ and V̂(S₁\|θ₀), as Algorithm 1 computes it: "
        r"$R_1 + \gamma\hat V(S_1)$, TD(0)'s; with both right the check runs "
        "`forward_td_lambda` at that λ and `td0` itself and shows them equal step for "
        "step (no histories are handed in any more)",
        "λ = η with γ < 1 (told); ρ₀ for the target (told: ρ is only part of it); R alone"),
    # notebook 05

    "nb05.true_value": (
        "**build**: a true value by simulation",
        "the student's `my_value(x, v)` against `mc.true_value` (refused inside, or "
        "pasted) at four states, exactly",
        "+steps: the sign; steps ± 1 (told); right at one state only"),
    "nb05.yardstick": (
        "a yardstick for the metric",
        "the normalised error of the best constant over the student's evaluation sample "
        "(`mc.evaluation_states(**nb05.given_sample())`; without an id the notebook's 500"
        " states, seed 0), σ / RMS of the true values, to 1e-6",
        "the median's error (told); the best constant itself (told); rounded answers"),
    "nb05.predict_then_measure": (
        "**experiment**: predict, then measure, η at the student's λ",
        "(a) K for η = 0.01, 0.1, 0.3 at the student's λ (0.9 without an id: 44, 22, 12; λ "
        "one of the stored grid's 0.8, 0.85, 0.925, 0.95, 0.975, never the paper's 0.9); (b) "
        "the prediction (rises / falls / stays) and a sentence why, recorded with "
        "`nb05.record_prediction` before the check shows the measurement: it passes as "
        "recorded, whether or not the data agree, "
        "and a different one after the measurement was shown is refused (in the record and in "
        "the check); the reasoning is graded by hand in the written-answer box under the check "
        "(an nbgrader manually graded answer, 1 point); (c) the three errors at the student's "
        "λ averaged over the student's 100 consecutive runs of the stored 200 (without an id "
        "all 200: the figure's points), compared with the check's own reading of the stored "
        "Figure 3 right data (the check takes no data object: a made-up one has nowhere to go)",
        "K rounded down; averaged over all 200 runs, as the figure is (told); rounded errors; "
        "no record before the check (told: record first)"),
    # notebook 06

    "nb06.simulate_policy": (
        "**build**: simulate a policy",
        "the student's `my_steps(x0, v0)` (push with the velocity, right at rest) against"
        " `heuristic_steps` at four starts, exactly; `heuristic_steps` and "
        "`mc.velocity_policy` run inside (any name) are refused; no message prints the "
        "solution's loop",
        'pushing left at rest (told: "At rest (v = 0) your car pushes left"); the goal '
        "step not counted (told: one step off)"),
    "nb06.forward_sarsa_delay": (
        "**build**: forward Sarsa(λ)'s delay",
        "the student's `my_k(gamma, lam, eta)` against `returns.k_bound` (refused inside,"
        " or pasted) at seven points",
        "rounded down (told); γ forgotten; `log(0)` raised at λ = 0 (told: K = 1)"),
    "nb06.epsilon_greedy": (
        "**predict, then measure**: how greedy is ε-greedy?",
        r"(predict) 1 − ε + ε/\|A\| for 3 and 2 actions at the student's ε (0.05 without "
        "an id; one of 0.050, 0.051, …, 0.400), exactly (a formula in ε): graded on that "
        "reasoning; (measure) the check then draws 50,000 actions itself with the engine's "
        "`epsilon_greedy` per task and prints the measured share beside the prediction; a "
        "prediction equal to a measured share is refused (a measurement is not a prediction)",
        "1 − ε (told: the random draw can pick the greedy action too); another id's ε "
        "(named); the printed measured share (refused)"),
    "nb06.cartpole_target": (
        "what the learner aims at on cart-pole",
        "the discounted return at γ = 0.99 of the student's N rewards of 1 (1000 without "
        "an id: 99.9957), to three decimals or more",
        "100 = 1/(1−γ), the infinite sum; N: undiscounted; N ± 1 terms (told)"),
    # notebook 07

    "nb07.gae_recursion": (
        "GAE from the recursion",
        "the student's `my_gae` equals `returns.gae` on three rollouts with and without "
        "episode ends (to 1e-9); `returns.gae` run inside (any name) or pasted in is "
        "refused",
        "the terminals ignored; the value at an episode's end not masked (told: mask "
        "V(S_{t+1}) too); the advantage not masked; a forward loop; λ = 0: the TD errors "
        "alone"),
}
