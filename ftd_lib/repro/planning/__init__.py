"""Planning, in one home: what a run will cost before it runs.

- :mod:`~ftd_lib.repro.planning.rates`     this machine's seconds (rates per prediction
  method and per (engine, method, task)): kept per code digest, reused, or the defaults
- :mod:`~ftd_lib.repro.planning.cost`      run-steps (stored chunks, stored returns, or said to
  be a guess) and seconds per chunk at those rates
- :mod:`~ftd_lib.repro.planning.calibrate` those rates measured on this machine, on the engine
  that will run, with the command's start-up and the slowdown of N workers at once
- :mod:`~ftd_lib.repro.planning.cut`       the rows not stored, cut by cost for N workers
- :mod:`~ftd_lib.repro.planning.schedule`  list scheduling: wall time and utilisation
- :mod:`~ftd_lib.repro.planning.plan`      ``plan FILE|NAME|all``: every stage's chunks and
  the command's predicted wall time
- :mod:`~ftd_lib.repro.planning.progress`  the progress bars' ETA from it

How the prediction held is measured by ``scripts/plan_accuracy.py`` (commands),
``scripts/measure_paper_run.py`` (a whole paper-scale run) and ``scripts/measure_device.py``.
"""
