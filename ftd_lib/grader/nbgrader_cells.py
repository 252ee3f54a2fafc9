"""nbgrader's ``OverwriteCells`` for ``autograde``, without its false "checksum has changed"
warning on an untouched test cell (the release's ``nbgrader_config.py`` names it).

nbgrader's ``generate_assignment`` stores each locked cell's checksum in the gradebook *before*
``ClearHiddenTests`` removes the hidden tests from the student version, so ``autograde``'s
``OverwriteCells`` finds every untouched "autograder tests" cell changed (nbgrader 0.8-0.9,
jupyter/nbgrader#1961): each submission logs one warning per exercise, and a cell a student did
edit looks like all the others. :class:`OverwriteCells` first compares a locked cell with what
the student version held (the gradebook's source with its hidden tests removed, as
``generate_assignment`` removes them): an untouched cell gets its hidden tests back and passes
nbgrader's check silently; any other change is reported by nbgrader as before.

Imported by nbgrader only (the grading role installs it); nothing else in ``ftd_lib`` needs it.
"""

from __future__ import annotations

from nbformat import NotebookNode
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.preprocessors import ClearHiddenTests
from nbgrader.preprocessors import OverwriteCells as _OverwriteCells

#: what the release's ``nbgrader_config.py`` puts in ``Autograde.sanitize_preprocessors``
#: in place of nbgrader's own ``OverwriteCells``
NAME = f"{__name__}.OverwriteCells"


def released_source(source: str, config=None) -> str:
    """``source`` as the student version holds it: its hidden tests removed by nbgrader's own
    ``ClearHiddenTests`` (with the course's configured markers)."""
    cell = NotebookNode(source=source)
    ClearHiddenTests(config=config)._remove_hidden_test_region(cell)
    return cell.source


class OverwriteCells(_OverwriteCells):
    """nbgrader's ``OverwriteCells``; a locked cell that is exactly the student version's (the
    gradebook's source less its hidden tests) gets its hidden tests back before nbgrader
    compares checksums, so only a cell the student changed is reported."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id is not None and utils.is_locked(cell):
            try:
                source_cell = self.gradebook.find_source_cell(
                    grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                source_cell = None  # nbgrader says so itself below
            if (source_cell is not None and source_cell.locked
                    and cell.source != source_cell.source
                    and cell.source == released_source(source_cell.source, self.config)):
                cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)
