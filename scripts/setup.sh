#!/usr/bin/env bash
# One-shot, idempotent set-up of a fresh Debian machine: the Debian packages the product needs, then a
# project virtualenv (.venv) with the package installed into it.
# Usage: scripts/setup.sh [extra,...]
#   no extra: the runtime only (`scripts/demo.sh`): ffmpeg, OpenCV's system libraries, the typefaces
#   dev:      also the test tools and what the tests use (chromium, a PostgreSQL server) (`scripts/test.sh`)
#   other extras as pyproject.toml names them: postgres, scale, train (e.g. "dev,train")
set -euo pipefail
cd "$(dirname "$0")/.."
EXTRAS="${1:-}"
PY="${PYTHON:-python3}"
has_extra() { [[ ",${EXTRAS}," == *",$1,"* ]]; }

if ! command -v "$PY" >/dev/null 2>&1 && [ "$PY" = python3 ] && [ "$(id -u)" = "0" ]; then
  # a fresh Debian installed without its standard tasks has no Python at all
  echo "setup: installing Debian packages: python3 python3-venv"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null
fi
command -v "$PY" >/dev/null 2>&1 || { echo "setup: $PY not found (Python 3.11+ is needed)" >&2; exit 1; }
"$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || { echo "setup: $PY is $("$PY" -V 2>&1); Python 3.11+ is needed" >&2; exit 1; }

venv_ok() { [ -x .venv/bin/python ] && .venv/bin/python -m pip --version >/dev/null 2>&1; }

need_apt=()
# Debian's python3 has no ensurepip without pythonX.Y-venv, so `python3 -m venv` fails (and leaves a
# .venv without pip behind).
if ! venv_ok && ! "$PY" -c 'import ensurepip, venv' >/dev/null 2>&1; then
  need_apt+=("python$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')-venv")
fi
command -v ffmpeg >/dev/null 2>&1 || need_apt+=(ffmpeg)
# OpenCV (opencv-python, the build the tracker package requires) links libGL and glib.
ldconfig -p 2>/dev/null | grep -q "libGL.so.1 " || need_apt+=(libgl1)
ldconfig -p 2>/dev/null | grep -q "libgthread-2.0.so.0 " || need_apt+=(libglib2.0-0)
# Typefaces for the generated card designs of training datasets (monitor/render/fonts.py).
[ -d /usr/share/fonts/opentype/urw-base35 ] || need_apt+=(fonts-urw-base35)
[ -d /usr/share/fonts/truetype/liberation ] || [ -d /usr/share/fonts/truetype/liberation2 ] || need_apt+=(fonts-liberation)
[ -d /usr/share/fonts/truetype/freefont ] || need_apt+=(fonts-freefont-ttf)
if has_extra dev; then
  # the browser tests drive chromium; the PostgreSQL tests start their own server
  command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need_apt+=(postgresql)
  # playwright drives chromium through its own node, which needs libatomic (absent from a minimal Debian)
  ldconfig -p 2>/dev/null | grep -q "libatomic.so.1 " || need_apt+=(libatomic1)
fi
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

if ! venv_ok; then
  rm -rf .venv
  "$PY" -m venv .venv || { echo "setup: '$PY -m venv' failed (as root this script installs" \
    "pythonX.Y-venv; otherwise install it)" >&2; exit 1; }
fi
stamp=".venv/.installed-$(sha1sum pyproject.toml | cut -c1-12)-${EXTRAS:-runtime}"
stamp="${stamp//,/_}"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e ".${EXTRAS:+[${EXTRAS}]}"
  # One OpenCV: a virtualenv made when the project also declared opencv-python-headless holds both
  # builds in one cv2 folder; drop the headless one and lay opencv-python's files down again.
  if .venv/bin/python -m pip show -q opencv-python-headless >/dev/null 2>&1; then
    ocv="$(.venv/bin/python -m pip show opencv-python | sed -n 's/^Version: //p')"
    .venv/bin/python -m pip uninstall -q -y opencv-python-headless
    .venv/bin/python -m pip install -q --force-reinstall --no-deps "opencv-python==${ocv}"
  fi
  touch "$stamp"
fi
