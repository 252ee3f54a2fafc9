"""Control methods written as pieces of the compiled kernel's extension point
(:mod:`ftd_lib.engine.kernel.extend`), outside the kernel's files, as a researcher writes
theirs: :mod:`.n_step_sarsa` (the worked example) and :mod:`.sarsa_lambda` (Sarsa(λ) as
pieces, held to the kernel's own :func:`ftd_lib.engine.kernel.runs.sarsa_run`)."""
