"""Fixtures: run this family without importing the other families (they may be mid-edit)."""

from __future__ import annotations

import pytest

import schedulers.backfill  # noqa: F401 - registers the family
from schedulers import registry


@pytest.fixture(autouse=True)
def _only_this_family(monkeypatch):
    monkeypatch.setattr(registry, "_discovered", True)
