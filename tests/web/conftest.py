import pytest

from cloudsched_web.scenarios.models import Scenario


@pytest.fixture(autouse=True)
def _eager_celery(settings):
    # View tests run the real task in-process right after commit; the worker process is
    # exercised by tests/integration.
    from cloudsched_web.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def scenario(alice, toy_scenario):
    return Scenario.objects.create(owner=alice, family="toy", name=toy_scenario["name"], config=toy_scenario)
