"""The ways out of the course: what turns the notebooks into something other than a live
notebook. :mod:`ftd_lib.course` is what the notebooks call; this package only reads them.

- ``present``: a notebook as a static way out shows it, from the cells' roles
  (:mod:`ftd_lib.course.roles`)
- ``release``: a students' or an instructors' copy of the course
- ``slides``: the notebooks' slideshow metadata and the RISE style; ``deck``: one static
  reveal.js deck per lecture; ``lectures``, ``lecture_plan``, ``slide_words``: the lectures,
  their timing rule and the lecture plan; ``closing``: each lecture's homework and discussion
  slides; ``cues``: the speaker cue of every slide
- ``handouts``: one PDF per notebook
- ``present``: the static view every way out (deck, handouts, site) makes of a notebook, from
  its cells' roles (``roles``)
- ``site``: the course as a static website; ``landing``: its landing page; ``figure_alt``: its
  figures' alt text; ``static_explorers`` and ``site_static/``: its kernel-less explorers and
  the fixes to the themes
"""
