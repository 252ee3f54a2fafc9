"""What belongs to van Seijen (2016) itself, beside the generic runner that computes any
experiment file (:mod:`ftd_lib.repro`): the paper's claims and the rules that confront them
with the numbers (:mod:`~ftd_lib.repro.paper.claims`), the claim-5 set-up study
(:mod:`~ftd_lib.repro.paper.study`), the block λ-return study's reading
(:mod:`~ftd_lib.repro.paper.block_study`) and Figs. 1-2 (:mod:`~ftd_lib.repro.paper.fig1`,
:mod:`~ftd_lib.repro.paper.fig2`). The runner (experiment, chunks, runs, launch, protocol,
store, planning) never imports this package (``tests/repro/test_paper_layering.py``); the
front door and the report plug it in.
"""
