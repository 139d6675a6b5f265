"""One fuzz worker for the whole session: its start-up (importing numpy and every reader) is paid once."""

from __future__ import annotations

import pytest

from tests.model.fuzz.runner import Worker


@pytest.fixture(scope="session")
def fuzz_worker():
    worker = Worker()
    yield worker
    worker.close()


@pytest.fixture(scope="session")
def fuzz_root(tmp_path_factory):
    """Where inputs are written: `inputs/<format>-<seed>/`, and `outside/` that no reader may touch."""
    return tmp_path_factory.mktemp("fuzz")
