# shellcheck shell=bash
# Sourced by the peers benchmarks (engine_vs_peers.sh, fla_kda_on_cpu.sh): makes the Python environment VENV once and
# puts torch in it, the CPU wheel when its index answers, else PyPI's (the CUDA build, gigabytes), with PACKAGES
# beside it (from PyPI too when the CPU index is used). Sets PEERS_PY to the environment's python.
#   usage: peers_venv VENV [PACKAGE...]
peers_venv() {
  local venv=$1 imports=torch package
  shift
  [[ -x $venv/bin/python ]] || python3 -m venv "$venv"
  PEERS_PY=$venv/bin/python
  for package in "$@"; do imports+=", $package"; done
  "$PEERS_PY" -c "import $imports" 2>/dev/null && return 0
  if curl -fsS --max-time 10 -o /dev/null https://download.pytorch.org/whl/cpu/ 2>/dev/null; then
    "$PEERS_PY" -m pip install --quiet torch "$@" --index-url https://download.pytorch.org/whl/cpu \
      ${1:+--extra-index-url https://pypi.org/simple}
  else
    "$PEERS_PY" -m pip install --quiet torch "$@"
  fi
}
