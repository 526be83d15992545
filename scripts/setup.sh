#!/usr/bin/env bash
# One-shot, idempotent set-up of a fresh machine: Debian packages the product and its
# tests use, then a project virtualenv with the package and its dev tools.
# Usage: scripts/setup.sh [extra,...]   (e.g. "dev" (default) or "dev,train")
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-dev}"
PY="${PYTHON:-python3}"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v ffmpeg >/dev/null 2>&1 || need_apt+=(ffmpeg)
# opencv-python (pulled in by the tracker package) links libGL and glib even when headless.
ldconfig -p 2>/dev/null | grep -q "libGL.so.1 " || need_apt+=(libgl1)
ldconfig -p 2>/dev/null | grep -q "libgthread-2.0.so.0 " || need_apt+=(libglib2.0-0)
# Typefaces for the generated card designs of training datasets (monitor/render/fonts.py).
[ -d /usr/share/fonts/opentype/urw-base35 ] || need_apt+=(fonts-urw-base35)
[ -d /usr/share/fonts/truetype/liberation ] || [ -d /usr/share/fonts/truetype/liberation2 ] || need_apt+=(fonts-liberation)
[ -d /usr/share/fonts/truetype/freefont ] || need_apt+=(fonts-freefont-ttf)
[ -x /usr/lib/postgresql/15/bin/postgres ] || ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "setup: installing Debian packages: ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: warning: not root, cannot install ${need_apt[*]} (browser/postgres tests will skip)" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-${EXTRAS//,/_}"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".[${EXTRAS}]"
  touch "$stamp"
fi
