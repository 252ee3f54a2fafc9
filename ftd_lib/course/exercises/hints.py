"""The hints of the course's exercises: one folded box each, shown by
:func:`ftd_lib.course.exercises.hint`. A release for students keeps them unless it is made
with ``--no-hints`` (``python -m ftd_lib release``), which writes this table empty."""

#: exercise key -> (title, hint in Markdown with $math$)
HINTS = {
    'nb01.discounted_return': (
        'Exercise 1, a discounted return',
        r"""
        Write out $G_0 = R_1 + \gamma R_2 + \gamma^2 R_3 + \dots$, one term per reward of
        your episode: the first reward is not discounted, the last gets $\gamma^{T-1}$.
        """),
    'nb01.bellman_row': (
        'Exercise 2, one row of the Bellman equation',
        r"""
        From state 1 the walk earns reward 1, then ends (probability `p_left`, value 0) or
        moves to state 2 (probability `1 - p_left`, value `v2`).
        """),
    'nb01.td0_update': (
        'Exercise 3, one TD(0) update by hand',
        r"""
        Eq. (1) with a one-hot feature: $V(s) \leftarrow V(s) + \alpha\,(R + \gamma V(s') -
        V(s))$; only state $s$ changes.
        """),
    'nb02.n_step_return': (
        'Exercise 1, an n-step return',
        r"""
        $G_0^{(2)} = R_1 + \gamma R_2 + \gamma^2 \hat V_2$: two rewards, then the value of
        the state reached after two steps, $S_2$ (`values[2]`).
        """),
    'nb02.interim_lambda_return': (
        'Exercise 2, an interim λ-return',
        r"""
        With $h - t = 3$, eq. (2) has weights $(1-\lambda)$, $(1-\lambda)\lambda$ on
        $G_0^{(1)}, G_0^{(2)}$ and $\lambda^2$ on the longest, $G_0^{(3)}$. They sum to 1.
        """),
    'nb02.build_td_lambda': (
        'Exercise 3, build TD(λ) and reproduce a point of Figure 1',
        r"""
        Three lines per step: the TD error with the current weights (the terminal's value
        is 0), the trace e ← γλ e + ∇V̂(S_t), the update θ ← θ + α δ e. The trace starts
        at 0 in each episode, and every row you append must be a new array (not `w` changed
        in place afterwards). For the point: run with your α, prepend θ_0 = 0 as row 0
        before `normalised_rms`, and read the row at the end of your episode.
        """),
    'nb03.beta_td_lambda': (
        'Exercise 1, β of TD(λ) for λ < 1',
        r"""
        Which TD errors are non-zero in an episode? Only the last. What is the trace at
        the last step when the state was visited T times and the trace decays by λ between
        visits? A geometric sum of T terms.
        """),
    'nb03.divergence_edge': (
        'Exercise 2, the edge of divergence',
        r"""
        The error is multiplied by 1 − β each episode; the edge is β = 2. Solve your closed
        form for β of TD(λ) for α, at your λ and T.
        """),
    'nb03.beta_two': (
        'Exercise 3, V₀ = 1 and β = 2',
        r"""
        Write the pseudo-update as $1 - \hat V_T = (1-\beta)(1-\hat V_0)$ and put in $\hat
        V_0 = 1$, then $\beta = 2$.
        """),
    'nb03.replacing_traces': (
        'Exercise 4, β with replacing traces',
        r"""
        The one state is active at every step, so a replacing trace is reset to 1 at every
        step: what is $e_{T-1}$? Then follow the TD(λ) derivation of section 2.
        """),
    'nb04.rho_recursion': (
        'Exercise 1, the ρ-recursion',
        r"""
        Write G_t^{λ|h} by eq. (2) and use G_t^{(n)} = R_{t+1} + γ G_{t+1}^{(n−1)} for n ≥
        2: what is left over that does not belong to γλ G_{t+1}^{λ|h}? The one-step return
        carries weight (1 − λ).
        """),
    'nb04.build_algorithm1': (
        'Exercise 2, Algorithm 1',
        r"""
        Translate the listing line by line; keep V_current from the previous pass (it is
        V̂(S_t|θ_{t−1}), 0 at t = 0). The update is w + α (U − V̂(S_p|w)) ∇V̂(S_p|w): make a
        new array (w = w + ...), so the rows you appended stay as they were. Then the end of
        the episode: U ← U_sync if the queue never filled, the ρ-step only between the
        remaining updates, and out[-1] = w to record the weights after them.
        """),
    'nb04.next_bounded_return': (
        'Exercise 3, the next K-bounded return',
        r"""
        First one step later in time, $U \leftarrow (U - \rho_t)/\gamma\lambda$ (eq. 7),
        which gives $G_{t+1}^{\lambda|t+K}$; then one step more horizon with weight
        $(\gamma\lambda)^{K-1}$ (eq. 6, $h - (t+1) = K - 1$).
        """),
    'nb04.first_update': (
        'Exercise 4, the first update',
        r"""
        $K = \lceil \log \eta/\log \gamma\lambda \rceil$ (1 when $\gamma\lambda \le \eta$).
        The update of $S_0$ needs the horizon $0 + K$: the pass that observes $S_K$ is the
        pass at time step $t = K-1$.
        """),
    'nb04.horizon_extension': (
        'Exercise 5, the horizon-extension identity',
        r"""
        Write $G_t^{\lambda|h+1}$ by eq. (2), split off the last two terms, and use that
        $G_t^{(h+1-t)}$ and $G_t^{(h-t)}$ share their first $h-t$ rewards.
        """),
    'nb04.k1_is_td0': (
        'Exercise 6, K = 1 is TD(0)',
        r"""
        $K = 1$ when $(\gamma\lambda)^1 \le \eta$. Put $h = t+1$ in eq. (2): the sum is
        empty and the last weight is $\lambda^0$. Which return is left, and when is it
        available?
        """),
    'nb05.true_value': (
        'Exercise 1, a true value by simulation',
        r"""
        In your function, loop: take the policy's action in the current state, step the car
        with `mc.mountain_car_step` (it returns the next position, velocity and whether the
        goal is reached) and count the steps until the goal; every step costs −1, so return
        minus the count.
        """),
    'nb05.yardstick': (
        'Exercise 2, a yardstick for the metric',
        r"""
        Draw your sample with `mc.evaluation_states(**nb05.given_sample())`. The constant $c$
        that minimises $\sum_s (c - v(s))^2$ is the mean of the true values; its RMS error is
        a statistic of the true values you know by another name.
        """),
    'nb05.predict_then_measure': (
        'Exercise 3, an experiment',
        r"""
        K = ceil(log η / log γλ), at your λ (`nb05.given_experiment()`). For the prediction,
        think of what a shorter K drops from the λ-return, and what it gains (a shorter
        delay). To measure: `res = figures.stored("fig3-right")`; for each label, the `cell`
        of `res.summary()[label]` where `x` is your λ is a row of `res["metric"]` (one error
        per run): average it over your runs only.
        """),
    'nb06.simulate_policy': (
        'Exercise 1, simulate a policy',
        r"""
        Loop at most 10,000 times: choose the action from the sign of the velocity (at rest,
        v = 0, push right: action 2), then `x, v, terminal = mc.mountain_car_step(x, v, a)`;
        return the number of calls when `terminal` is True (the call that reaches the goal
        counts).
        """),
    'nb06.forward_sarsa_delay': (
        "Exercise 2, forward Sarsa(λ)'s delay",
        r"""
        Take logs of $(\gamma\lambda)^K \le \eta$: $\log(\gamma\lambda) < 0$, so $K \ge
        \log\eta / \log(\gamma\lambda)$; round up. When $\gamma\lambda \le \eta$ one step
        is enough, and $\log 0$ does not exist.
        """),
    'nb06.epsilon_greedy': (
        'Exercise 3, how greedy is ε-greedy?',
        r"""
        The greedy action is taken with probability $1-\varepsilon$ plus its share of the
        random draws, $\varepsilon/|\mathcal A|$, at your ε. Give it exactly (a formula in
        ε): the check then measures the engine's `epsilon_greedy` itself and prints the
        shares it drew.
        """),
    'nb06.cartpole_target': (
        'Exercise 4, what the learner aims at on cart-pole',
        r"""
        $\sum_{k=0}^{N-1} \gamma^k = (1-\gamma^{N})/(1-\gamma)$ for your $N$ rewards: a
        geometric series, not quite $1/(1-\gamma)$.
        """),
    'nb07.gae_recursion': (
        'Exercise 1, GAE from the recursion',
        r"""
        Loop backwards, $t = T-1, \dots, 0$, with a running advantage $A$ (0 before the loop):
        each step's $\delta_t$, then $A$ from $\delta_t$ and the $A$ of step $t+1$, as the
        section's recursion writes them. Where $d_t = 1$ the episode ended: nothing after it
        may carry over, neither $\hat V(S_{t+1})$ nor the later $A$ (multiply by $1 - d_t$).
        """),
}
