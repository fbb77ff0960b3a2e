import pytest

from tests import toy_family

toy_family.install()


@pytest.fixture
def toy_scenario():
    return toy_family.TOY.example()
