#!/usr/bin/env bash
# Create .venv and install the pinned requirements; a no-op in well under a second when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
VENV=.venv
STAMP=$VENV/.requirements.sha256

if [[ ! -x $VENV/bin/python ]]; then
  echo "bootstrap: creating $VENV"
  "$PY" -m venv "$VENV"
fi

want=$(cat requirements.txt scripts/bootstrap.sh | sha256sum | cut -d' ' -f1)
if [[ -f $STAMP && $(cat "$STAMP") == "$want" ]]; then
  exit 0
fi

echo "bootstrap: installing pinned requirements (the first time compiles llama-cpp-python: several minutes)"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# llama.cpp must be built for a portable x86-64 target: the host CPU advertises
# AMX/AVX-512 that the VM does not fully enable, so a native build dies with SIGILL.
CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}" \
  "$VENV/bin/python" -m pip install --quiet -r requirements.txt
echo "$want" > "$STAMP"
echo "bootstrap: done"
