import importlib.util
from pathlib import Path

import pytest


@pytest.fixture
def script():
    """``script(name)``: ``scripts/<name>.py`` as a module (the scripts are not a package)."""

    def load(name):
        path = Path(__file__).resolve().parents[2] / "scripts" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    return load
