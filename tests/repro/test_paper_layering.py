"""The generic runner never imports the paper: what computes any experiment
file -- the loader, the chunks, the runs, the protocol, the store, the plan -- reaches no
module of :mod:`ftd_lib.repro.paper` (its claims, the claim-5 study, Figs. 1-2), at module
level or inside a function, directly or through another module. The front door (``cli``) and
the report plug the paper in. The import graph is read from the source
(``tests/core/test_layering.py``)."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "layering", Path(__file__).resolve().parents[1] / "core" / "test_layering.py")
layering = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(layering)

#: the modules that compute an experiment file
RUNNER = ("experiment", "keys", "cells", "chunks", "setups", "store", "reuse", "runs", "launch",
          "protocol", "executors", "results", "provenance", "plots", "planning",
          "planning.plan", "planning.cost", "planning.calibrate", "planning.cut",
          "planning.schedule", "planning.progress")


def reachable(graph: dict, start) -> set:
    seen, todo = set(), list(start)
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo += sorted(graph.get(m, ()))
    return seen


def test_the_runner_reaches_no_module_of_the_paper():
    graph = layering.import_graph()
    start = [f"ftd_lib.repro.{m}" for m in RUNNER]
    assert all(m in graph for m in start), [m for m in start if m not in graph]
    paper = sorted(m for m in reachable(graph, start) if m.startswith("ftd_lib.repro.paper"))
    assert paper == [], paper


def test_the_check_would_see_a_paper_import():
    """The check on a graph worked out by hand: an import two steps away is seen."""
    g = {"ftd_lib.repro.runs": {"ftd_lib.repro.plots"},
         "ftd_lib.repro.plots": {"ftd_lib.repro.paper.claims"}}
    assert "ftd_lib.repro.paper.claims" in reachable(g, ["ftd_lib.repro.runs"])


def test_the_front_door_and_the_report_plug_the_paper_in():
    graph = layering.import_graph()
    assert any(m.startswith("ftd_lib.repro.paper") for m in graph["ftd_lib.repro.report"])
