"""What the notebooks of the course call: one module per notebook, named after it, and the
pieces they share.

- ``nb01_td_basics`` .. ``nb06_nn_control``: the helpers of each notebook (its data, its
  pictures, its numbers)
- ``figures``: a paper figure from the stored results beside a live run, with its claims
- ``plots``: the course's figure style (colours and labels from :mod:`ftd_lib.methods`)
- ``widgets``, ``stepper``: the interactive pieces (ipywidgets)
- ``task_pictures``: the control tasks drawn (the car on its hill, the cart and its pole)
- ``exercises``: the self-checks, one module per notebook; ``grading``: ``python -m ftd_lib
  check`` and each notebook's self-check cell; ``colab``: the install cell on Colab
- ``roles``: what each cell is for (its tags), which every way out honours
"""

from __future__ import annotations

import contextlib
import os


def quick() -> bool:
    """True when ``CI`` is set in the environment (to anything but ''/0/false/no): notebooks
    then run their heavy cells at a smaller scale."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@contextlib.contextmanager
def one_torch_thread():
    """Run the enclosed code with one torch thread, then restore the count: the notebooks' live
    batches are a few runs wide, where one thread is fastest (and fair on a shared machine)."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
