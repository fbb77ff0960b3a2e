# Shared set-up steps for run.sh and test.sh (sourced, not executed).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3}"
VENV="$ROOT/.venv"
# The instance's files (database, logs, Redis data, media): var/ unless CLOUDSCHED_VAR_DIR says elsewhere
# (the settings read the same variable).
VAR="${CLOUDSCHED_VAR_DIR:-$ROOT/var}"

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# Install Debian packages that are missing (as root, or through sudo).
apt_ensure() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  log "installing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get install -y --no-install-recommends "${missing[@]}" \
    || { $sudo apt-get update && $sudo apt-get install -y --no-install-recommends "${missing[@]}"; }
}

python_env() {
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating the virtualenv in .venv"
    "$PY" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha256"
  local want; want="$(sha256sum requirements.txt | cut -d' ' -f1)"
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "installing pinned Python packages"
    "$VENV/bin/pip" install -q --upgrade pip
    "$VENV/bin/pip" install -q -r requirements.txt
    echo "$want" > "$stamp"
  fi
}

node_env() {
  if [ -L node_modules ]; then
    # A link to a shared install (a git worktree's): `npm ci` would empty the target for everyone.
    [ -d node_modules/chart.js ] && [ -x node_modules/.bin/eslint ] && return 0
    echo "node_modules links to $(readlink node_modules), which lacks front-end packages: run npm ci there" >&2
    return 1
  fi
  # The lock file's content decides, not its date (a fresh checkout is newer than any install).
  local stamp="node_modules/.cloudsched-lock.sha256"
  local want; want="$(sha256sum package-lock.json | cut -d' ' -f1)"
  if [ ! -d node_modules/chart.js ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    log "installing front-end packages from npm"
    # No install scripts: the front end needs only files (this also keeps swagger-ui-dist's telemetry off).
    # The devDependencies (ESLint, prettier: the test command's lint) come too; the pages load none of them.
    SCARF_ANALYTICS=false npm ci --no-audit --no-fund --ignore-scripts
    echo "$want" > "$stamp"
  fi
}

STARTED_REDIS=""
redis_start() {
  local port="${REDIS_PORT:-6379}"
  if redis-cli -p "$port" ping >/dev/null 2>&1; then return 0; fi  # someone else's Redis: leave it alone
  log "starting redis-server on 127.0.0.1:$port"
  mkdir -p "$VAR"
  redis-server --port "$port" --bind 127.0.0.1 --daemonize yes --dir "$VAR" \
    --logfile "$VAR/redis.log" --pidfile "$VAR/redis.pid"
  STARTED_REDIS="$VAR/redis.pid"
  for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "redis-server did not start; see $VAR/redis.log" >&2
  return 1
}
