"""Accepting a scenario: the one path the wizard's form, the API and the admin all take.

A scenario is accepted when the library validates it (``schedulers.validate``: every field and the family's
cross-field checks), it fits this server's run limits (``runs.budget``: an estimate of its memory and CPU
time against the worker's limits), its inline SWF text is stored as a trace it then names, and every trace
it names is one the user may use (another user's answers as a missing one). What is refused is a
``ScenarioError`` naming every bad field with the allowed range; nothing is stored for it.
"""

from __future__ import annotations

import logging

import schedulers
from cloudsched_web.runs import budget
from cloudsched_web.scenarios.models import Scenario
from cloudsched_web.traces.services import absorb_inline, check_refs, grant

__all__ = ["accept", "clone_config"]

log = logging.getLogger(__name__)


def accept(config, user):
    """``(family, normalised config)`` for ``config`` submitted by ``user`` (None: no owner yet, e.g. an admin form
    whose owner field is invalid; inline traces are then kept inline), or a ``ScenarioError``."""
    try:
        family, cfg = budget.checked(schedulers.validate(config))
    except OSError as exc:  # a path the OS refuses (too long, bad bytes): bad input, not a server error
        log.warning("scenario validation raised %r; refused", exc)
        raise schedulers.ScenarioError.single(
            "workload", f"the scenario names a file the server cannot use: {exc.strerror}", "a trace file the server "
            "may read (CLOUDSCHED_TRACE_DIRS), or a stored trace",
        ) from None  # fmt: skip
    normalised = absorb_inline(cfg.model_dump(mode="json"), user)
    if user is not None and (errors := check_refs(normalised, user)):
        raise schedulers.ScenarioError(errors)
    return family, normalised


def clone_config(owner, config, name):
    """A new scenario of ``owner``'s from ``config`` (a shared run's or study's), named "copy of …"."""
    config = {**config, "name": f"copy of {name}"[:200]}
    grant(owner, config)  # the source was the owner's, or shared with them: so is its trace
    return Scenario.objects.create(owner=owner, family=config.get("family", ""), name=config["name"], config=config)
