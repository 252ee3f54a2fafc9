r"""Experiments at scale -- the paper's Figures 3 and 4, the studies, a researcher's own --
declared in experiment files (``experiments/``): chunks, a resumable runner, the report.

Modules (each one idea; the command line ``python -m ftd_lib`` is :mod:`ftd_lib.repro.cli`):

- :mod:`~ftd_lib.repro.definitions` one definition per figure (:func:`figure`), quick or
  paper scale
- :mod:`~ftd_lib.repro.chunks`   a figure cut into chunks (:class:`ChunkTask`, :func:`cut_chunks`),
  the engine as a runner (:func:`engine_runner`, :func:`engine_runner_name`), a chunk's reduction
- :mod:`~ftd_lib.repro.store`    finished chunks on disk, written atomically (resume)
- :mod:`~ftd_lib.repro.results`  a figure's stored data (:class:`Results`, :func:`load_results`)
  and the commands that make it (:func:`reproduce_command`)
- :mod:`~ftd_lib.repro.runs`     :func:`run_figure` (chunks in parallel worker processes, then
  assembled in a fixed order)
- :mod:`~ftd_lib.repro.executors` ``--executor dask``: the chunks on a Dask cluster, stored here
- :mod:`~ftd_lib.repro.planning`  ``plan FILE|NAME|all`` and the progress bars' ETA: what a
  chunk costs before it runs (rates per engine, method and task, calibrated here), the rows
  not stored cut by cost for N workers (:mod:`~ftd_lib.repro.reuse` reads them back from any
  cut), list scheduling, the plan against measured runs
- :mod:`~ftd_lib.repro.plots`    a stored figure drawn; the report's PNGs
- :mod:`~ftd_lib.repro.report`   ``REPORT.md``: the folder's experiments, pictures, numbers,
  provenance
- :mod:`~ftd_lib.repro.setups`   a set-up other than the engines' default (network, start
  states, inputs), run by the compiled kernel
- :mod:`~ftd_lib.repro.paper`    what is the paper's own: its claims (each confronted with the
  numbers by a rule), the claim-5 study, the block study's reading, Figs. 1-2; the runner
  never imports it
- :mod:`~ftd_lib.repro.experiment` an experiment file (``experiments/*.toml``) read (its
  curves and their parameter sweeps: :mod:`~ftd_lib.repro.curves`);
  :mod:`~ftd_lib.repro.launch` runs one (``python -m ftd_lib run FILE``);
  :mod:`~ftd_lib.repro.sections` one report section for any experiment
- :mod:`~ftd_lib.repro.cli`      ``python -m ftd_lib reproduce | run | plan | report | bench``
  (its options: :mod:`~ftd_lib.repro.options`)

van Seijen (2016), Sec. 6. Each figure is a list of *cells* -- one setting of (method,
:math:`\alpha`, :math:`\lambda`, :math:`\gamma`, :math:`\eta`, :math:`K_{max}`) -- each run
``runs`` times with run ids ``0 .. runs-1``. Every cell uses the same run ids, so run ``r`` of
every cell sees the same random numbers (same network initialisation, same environment noise):
common random numbers make the comparison between settings sharper, and a run's numbers never
depend on the batch it was computed in (:mod:`ftd_lib.rng`).

The work is cut into *chunks*: a block of cells of one method times a block of runs. Chunks are
computed by a *runner* (by default the batched engine, :mod:`ftd_lib.engine`), one after
another or in parallel worker processes, and each is stored as soon as it is finished
(:mod:`ftd_lib.repro.store`), so an interrupted reproduction resumes where it stopped and ends
with exactly the numbers of an uninterrupted one.

Scales: ``quick`` (seconds: what a file's ``[quick]`` changes; the machinery working, not the
paper's result) and ``paper`` (the file's counts). What a run costs: ``python -m ftd_lib plan
FILE`` (``docs/reproduction.md``'s measured tables).

Metrics (per run, then averaged over runs)
------------------------------------------
prediction (Fig. 3)  the normalised RMS error at the end of each episode, averaged over the
                     episodes (paper: the first 50). A diverged run counts as ``inf``: it is
                     drawn off the chart, never dropped.
control (Fig. 4)     the return of each episode, averaged over the episodes (paper: the first
                     50 on mountain car, the first 1000 on cart-pole). Where the figure
                     optimises :math:`\alpha`, each point is the best cell of its curve and
                     :math:`\lambda` (best mean over runs). A diverged run's returns are
                     ``nan`` from then on, so its cell's mean is ``nan``: never the best; a
                     point whose every :math:`\alpha` diverged is drawn below the chart.

The runner contract
-------------------
``runner(task: ChunkTask, *, device: str, progress: bool) -> dict`` with
``values``: ``(rows, n_episodes)`` floats (error or return per episode) and ``diverged``:
``(rows,)`` bools. Any function with that signature can stand in for the engine (tests use a
cheap one). A runner may carry a ``name`` attribute; it is part of every chunk's identity, so
chunks computed by a different runner (or engine version) are never mixed in. The engine's
name is ``engine-<method>-v<N>`` (its numerics version,
:data:`ftd_lib.engine.NUMERICS_VERSION`), and a chunk's identity also holds its settings rows,
run ids, seed, scale, episodes, epsilon, episode cap (and what a cap means) and the kind of
device (cpu/cuda: their floating point differs).
"""
