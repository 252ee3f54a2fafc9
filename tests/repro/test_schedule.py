"""ftd_lib.repro.planning.schedule: list scheduling against a slow obvious simulation, LPT
against the best schedule found by brute force, the lower bound;
ftd_lib.repro.planning.progress: the bar's ETA is the plan's."""

import io
import itertools

import numpy as np
import pytest

from ftd_lib.repro.planning.progress import FigureBar, format_seconds
from ftd_lib.repro.planning.schedule import largest_first, list_schedule, lower_bound, lpt


def simulate(costs, workers, start_at=0.0):
    """A clock that ticks from event to event: at each moment every idle worker (lowest
    number first) takes the next chunk in the list; then the clock moves to the next moment a
    worker finishes. Returns each chunk's start, its worker, and the last finish."""
    busy_until = [start_at] * workers
    start, worker = [], []
    now, j = start_at, 0
    while j < len(costs):
        for w in range(workers):
            if j < len(costs) and busy_until[w] <= now:
                start.append(now)
                worker.append(w)
                busy_until[w] = now + costs[j]
                j += 1
        later = [t for t in busy_until if t > now]
        if j < len(costs):
            now = min(later)
    return start, worker, max(busy_until) if costs else 0.0


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
def test_list_schedule_is_the_simulation(workers):
    rng = np.random.default_rng(workers)
    for _ in range(30):
        costs = [float(c) for c in rng.integers(1, 20, size=rng.integers(0, 15))]
        s = list_schedule(costs, workers, start_at=3.0)
        start, worker, end = simulate(costs, workers, 3.0)
        assert s.start == start
        assert s.worker == worker
        assert s.makespan == pytest.approx(end if costs else 0.0)
        if costs and end > 0:
            assert s.utilisation == pytest.approx(sum(costs) / (workers * end))


def best_makespan(costs, workers):
    """The best of all assignments of chunks to workers (brute force, small cases)."""
    best = float("inf")
    for assign in itertools.product(range(workers), repeat=len(costs)):
        loads = [0.0] * workers
        for c, w in zip(costs, assign, strict=True):
            loads[w] += c
        best = min(best, max(loads))
    return best


def test_lpt_is_within_graham_bound_and_above_the_lower_bound():
    rng = np.random.default_rng(0)
    seen_worse_in_given_order = False
    for _ in range(60):
        workers = int(rng.integers(2, 4))
        costs = [float(c) for c in rng.integers(1, 30, size=rng.integers(2, 8))]
        opt = best_makespan(costs, workers)
        s = lpt(costs, workers)
        assert lower_bound(costs, workers) <= opt + 1e-9
        assert opt - 1e-9 <= s.makespan <= (4 / 3 - 1 / (3 * workers)) * opt + 1e-9
        seen_worse_in_given_order |= list_schedule(costs, workers).makespan > s.makespan
    assert seen_worse_in_given_order  # the order matters: largest first helps


def test_lpt_orders_largest_first_and_reports_each_chunk_in_place():
    costs = [1.0, 5.0, 3.0, 5.0]
    assert largest_first(costs) == [1, 3, 2, 0]
    s = lpt(costs, 2)
    assert s.start[1] == 0.0 and s.start[3] == 0.0  # the two largest first
    assert s.worker == [1, 0, 0, 1]  # 3 to the first free (worker 0 by the tie), 1 to the other
    assert s.makespan == 8.0 == best_makespan(costs, 2)
    assert s.loads == [8.0, 6.0]


def test_bad_input():
    with pytest.raises(ValueError, match="workers"):
        list_schedule([1.0], 0)
    with pytest.raises(ValueError, match="costs"):
        list_schedule([-1.0], 2)


def test_bar_shows_stage_chunks_and_the_plans_eta():
    out = io.StringIO()
    costs = [40.0, 30.0, 20.0, 10.0, 10.0]
    bar = FigureBar("fig4-left (paper, pilot)", costs, 2, loaded=3, later_s=100.0, file=out)
    assert bar.eta() == pytest.approx(list_schedule(costs, 2).makespan + 100.0)  # 60 + 100
    bar.finished(0)
    bar.finished(2)
    assert bar.eta() == pytest.approx(list_schedule([30.0, 10.0, 10.0], 2).makespan + 100.0)
    bar.close()
    text = out.getvalue()
    assert "fig4-left (paper, pilot)" in text
    assert "2/5 pieces" in text
    assert f"ETA {format_seconds(130.0)} (plan)" in text  # 30 + 100: not 2 chunks' speed
    assert "3 loaded" in text
    assert format_seconds(3725) == "1h02m" and format_seconds(65) == "1m05s"


def test_calibration_is_kept_for_this_machine_only(tmp_path, monkeypatch):
    from ftd_lib.repro.planning import cost

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cost.machine_rates() == cost.DEFAULT_RATES  # nothing kept yet
    mine = cost.Rates({"td_lambda": (1e-3, 1e-5, 100.0)}, {"sarsa_lambda": 2e-6},
                      {"prediction": 0.5}, 4.0, "calibrated here",
                      engines={"batch/sarsa_lambda/acrobot": (3e-4, 6e-6)}, startup_s=9.0,
                      engine_load_s=8.0, plot_load_s=7.0, draw_s=6.0, slowdown={"2": 1.5})
    cost.save_rates(mine)
    assert cost.machine_rates() == mine
    path = cost.rates_path()
    text = path.read_text().replace('"cpu_count"', '"cpu_count_other"')
    path.write_text(text)  # another machine's: not used
    assert cost.machine_rates() == cost.DEFAULT_RATES


def test_stored_step_seconds_is_the_median_over_the_kernels_chunks(tmp_path):
    from ftd_lib.repro.planning import calibrate as cost
    from ftd_lib.repro.store import ChunkStore

    st = ChunkStore(tmp_path / "chunks" / "fig4-left")
    arrays = {"metric": np.zeros(1)}
    for k, (s, it, width) in enumerate([(10.0, 1e7, 1.0), (30.0, 1e7, 1.0), (20.0, 1e7, 1.0),
                                        (99.0, 1e3, 1024.0)]):  # the last: the torch batch
        st.save({"method": "sarsa_lambda", "k": k}, arrays,
                {"compute_s": s, "engine": {"width": width, "iterations": it},
                 "machine": {"cpu": "X"}})
    assert cost.stored_step_seconds([tmp_path]) == {"sarsa_lambda": (2e-6, 3)}
    assert cost.stored_step_seconds([tmp_path], cpu="Y") == {}
