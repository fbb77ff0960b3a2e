"""Paper-figure presets (filled in below)."""

PRESETS: dict = {}
