"""Preset experiments of paper 004 (filled in below)."""

from __future__ import annotations

PRESETS: dict = {}
