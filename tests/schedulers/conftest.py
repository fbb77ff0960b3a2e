import pytest

from schedulers.core.traces import DirectoryCatalog, set_catalog


@pytest.fixture(autouse=True)
def _library_trace_catalog():
    """Library tests resolve trace references as the CLI does (the trace directories), not through the
    web app's Trace table that Django's start-up installed for the test session."""
    old = set_catalog(DirectoryCatalog())
    yield
    set_catalog(old)
