"""The test suite writes only to temporary directories, never into the checkout's var/."""

from pathlib import Path

from django.conf import settings

from tests.services import ROOT


def test_every_place_the_suite_writes_is_outside_the_checkout():
    places = [settings.VAR_DIR, settings.MEDIA_ROOT, settings.STATIC_ROOT]
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        places.append(settings.DATABASES["default"]["TEST"]["NAME"])
    assert places  # the loop below checks each
    for place in places:
        assert not Path(place).resolve().is_relative_to(ROOT.resolve()), place
