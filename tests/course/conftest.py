def pytest_configure(config):
    config.addinivalue_line(
        "markers", "fresh_venv: makes a fresh virtual environment from the students' copy's own "
        "start.sh (minutes; runs in CI: `-m 'not fresh_venv'` leaves it out locally)")
