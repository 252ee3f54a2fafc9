"""nbgrader's ``autograde`` warns of a changed checksum only for a test cell a student edited:
an untouched one (whose hidden tests ``generate_assignment`` removed after storing its checksum)
passes silently, with its hidden tests put back. Fast: nbgrader's own preprocessors on one cell
and a gradebook that answers what ``generate_assignment`` stored (the whole flow, with a kernel,
is ``test_class_of_three.py`` and ``tests/publish/test_nbgrader_flow.py``)."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import nbformat
import pytest

from ftd_lib.publish import release

nbgrader = pytest.importorskip("nbgrader")
from nbgrader import utils  # noqa: E402
from nbgrader.preprocessors import ClearHiddenTests, ComputeChecksums  # noqa: E402
from nbgrader.preprocessors import OverwriteCells as NbgradersOwn  # noqa: E402

from ftd_lib.grader import nbgrader_cells  # noqa: E402

GRADE_ID = "nb01-discounted_return-test"


def _source_and_released():
    """The instructors' test cell as ``with_autograder_tests`` writes it, the checksum
    ``generate_assignment`` stores for it (before the hidden tests go), and the student
    version's cell (after they went, its own checksum in its metadata)."""
    cell = nbformat.v4.new_code_cell(
        "# graded: the exercise's check, run again by nbgrader's autograde (1 point)\n"
        f"{release.HIDDEN[0]}\n{release.TEST_BODY.format(check='nb01.check_return(answer)')}\n"
        f"{release.HIDDEN[1]}")
    cell.metadata["nbgrader"] = dict(grade=True, grade_id=GRADE_ID, locked=True, points=1,
                                     schema_version=3, solution=False, task=False)
    stored = utils.compute_checksum(cell)
    student = nbformat.from_dict(cell)
    student, _ = ClearHiddenTests().preprocess_cell(student, {}, 0)
    student, _ = ComputeChecksums().preprocess_cell(student, {}, 0)
    return cell, stored, student


def _overwrite(cls, submitted, source, stored, caplog):
    """Run ``cls``'s ``preprocess_cell`` on ``submitted``; (the cell, the warnings logged)."""
    gradebook = SimpleNamespace(
        find_source_cell=lambda *a: SimpleNamespace(source=source.source, locked=True,
                                                    checksum=stored, cell_type="code"),
        find_graded_cell=lambda *a: SimpleNamespace(max_score=1.0))
    pp = cls()
    pp.gradebook, pp.notebook_id, pp.assignment_id = gradebook, "01_td_basics", "course"
    pp.log = logging.getLogger("test_nbgrader_cells")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="test_nbgrader_cells"):
        cell, _ = pp.preprocess_cell(nbformat.from_dict(submitted), {}, 3)
    return cell, [r.getMessage() for r in caplog.records]


def test_an_untouched_test_cell_logs_no_checksum_warning(caplog):
    source, stored, student = _source_and_released()
    assert release.HIDDEN[0] not in student.source  # the student version's cell
    _, warned = _overwrite(NbgradersOwn, student, source, stored, caplog)
    assert len(warned) == 1 and "'checksum'" in warned[0]  # nbgrader's own: a false warning
    cell, warned = _overwrite(nbgrader_cells.OverwriteCells, student, source, stored, caplog)
    assert warned == []
    assert cell.source == source.source and utils.compute_checksum(cell) == stored


@pytest.mark.parametrize("edit", [
    lambda s: "assert True  # graded",  # the test replaced
    lambda s: s + "\n_ftd_ok = True",  # a line added
    lambda s: s.replace("1 point", "2 points"),  # its comment edited
    lambda s: s + f"\n{release.HIDDEN[0]}\nassert True\n{release.HIDDEN[1]}",  # tests of its own
])
def test_an_edited_test_cell_is_still_reported_and_restored(edit, caplog):
    source, stored, student = _source_and_released()
    student.source = edit(student.source)
    cell, warned = _overwrite(nbgrader_cells.OverwriteCells, student, source, stored, caplog)
    assert len(warned) == 1 and f"'checksum' for cell {GRADE_ID} has changed" in warned[0]
    assert cell.source == source.source  # nbgrader grades with the instructors' cell


def test_the_release_config_names_it_in_place_of_nbgraders():
    """The instructors' ``nbgrader_config.py`` replaces exactly nbgrader's ``OverwriteCells``
    in autograde's sanitizing steps, the others kept in nbgrader's order."""
    from nbgrader.converters.autograde import Autograde
    from traitlets.config import Config

    config = Config()
    exec(release.NBGRADER_CONFIG, {"get_config": lambda: config})  # noqa: S102
    ours = config.Autograde.sanitize_preprocessors
    theirs = [f"{c.__module__.rsplit('.', 1)[0]}.{c.__name__}"
              for c in Autograde.class_traits()["sanitize_preprocessors"].default()]
    assert ours == [nbgrader_cells.NAME if n.endswith(".OverwriteCells") else n for n in theirs]
