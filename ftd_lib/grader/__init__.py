"""The course's grader: a submission's grade computed outside the student's process
(:mod:`.grade`), from the notebook file (:mod:`.submission`), with a student's functions run in
a child process (:mod:`.child`); ``python -m ftd_lib grade`` and the step after nbgrader's
``autograde`` that writes the scores into its gradebook (:mod:`.cli`).

It is the instructors' tooling: the students' copy of the course leaves it out (the in-notebook
checks, :mod:`ftd_lib.course.exercises`, stay there as the student's feedback).
"""
