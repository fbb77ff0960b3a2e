import pytest

from cloudsched_web.runs import queries
from cloudsched_web.scenarios.models import Scenario


@pytest.fixture(autouse=True)
def _eager_celery():
    # Submissions run the real task in-process right after commit (as in tests/web).
    from cloudsched_web.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture(autouse=True)
def _fresh_caches():
    from django.core.cache import cache

    cache.clear()
    queries.clear_cache()


@pytest.fixture
def scenario(alice, toy_scenario):
    return Scenario.objects.create(owner=alice, family="toy", name=toy_scenario["name"], config=toy_scenario)
