#!/usr/bin/env bash
# Install what the tests need (Chromium, ChromeDriver, Redis, Python and npm packages), lint, and run them all.
source "$(dirname "$0")/scripts/common.sh"

apt_ensure redis-server chromium chromium-driver postgresql
python_env
node_env

log "ruff (lint and format)"
"$VENV/bin/ruff" check .
"$VENV/bin/ruff" format --check .
log "eslint and prettier (static/js)"
npm run --silent lint
log "pytest"
exec "$VENV/bin/python" -m pytest "$@"
