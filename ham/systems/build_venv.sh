#!/usr/bin/env bash
# Build .venv-<system>, the virtualenv one GraphRAG system runs in (docs/systems.md), from
# ham/systems/requirements/<system>.txt. ham never imports it: its wrapper script
# (ham/systems/wrappers/<system>.py) runs under this venv's python. Usage (from the repo root):
#   bash ham/systems/build_venv.sh lightrag|hipporag|raganything|megarag
# MegaRAG is no package: MEGARAG_SRC names a checkout of its repository (cloned at the pinned
# commit when absent); the build checks the commit and puts the checkout on the venv's path.
set -euo pipefail
system=${1:?usage: build_venv.sh SYSTEM}
PYTHON=${PYTHON:-python3}
venv=.venv-$system
req=ham/systems/requirements/$system.txt
MEGARAG_URL=https://github.com/AI-Application-and-Integration-Lab/MegaRAG
MEGARAG_COMMIT=ca7c627c1e8885b729585fcc6e80062fed5aba2b
MEGARAG_SRC=${MEGARAG_SRC:-.systems-src/megarag}
[ -f "$req" ] || { echo "build_venv.sh: no requirements file $req (systems: lightrag hipporag raganything megarag)" >&2; exit 2; }
start=$(date +%s)
rm -rf "$venv"
"$PYTHON" -m venv "$venv"
pip="$venv/bin/pip"
"$pip" install --quiet --upgrade pip
case $system in
  lightrag)
    "$pip" install --quiet -r "$req" ;;
  raganything)
    "$pip" install --quiet -r "$req"
    "$pip" install --quiet --no-deps raganything==1.4.3 ;;
  hipporag)
    "$pip" install --quiet torch==2.13.0   # the CPU build, before anything can pull a CUDA one
    "$pip" install --quiet -r "$req"
    "$pip" install --quiet --no-deps hipporag==2.0.0a4 ;;
  megarag)
    "$pip" install --quiet torch==2.13.0
    "$pip" install --quiet -r "$req"
    if [ ! -d "$MEGARAG_SRC/.git" ] && [ ! -f "$MEGARAG_SRC/.git" ]; then
      git clone --quiet "$MEGARAG_URL" "$MEGARAG_SRC"
    fi
    git -C "$MEGARAG_SRC" -c advice.detachedHead=false checkout --quiet "$MEGARAG_COMMIT"
    got=$(git -C "$MEGARAG_SRC" rev-parse HEAD)
    [ "$got" = "$MEGARAG_COMMIT" ] || { echo "MegaRAG checkout $MEGARAG_SRC is at $got, not $MEGARAG_COMMIT" >&2; exit 1; }
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    realpath "$MEGARAG_SRC" > "$site/megarag-checkout.pth"
    echo "$MEGARAG_COMMIT" > "$venv/megarag-commit" ;;
  *) echo "build_venv.sh: unknown system $system" >&2; exit 2 ;;
esac
"$pip" freeze > "$venv/freeze.txt"
secs=$(( $(date +%s) - start ))
size=$(du -sm "$venv" | cut -f1)
echo "{\"system\": \"$system\", \"build_seconds\": $secs, \"size_mb\": $size}" > "$venv/.installed"
echo "built $venv in ${secs}s (${size} MB)"
