#!/usr/bin/env bash
# The whole test suite against build/ (./setup.sh builds it). GPU tests skip themselves without a device.
set -euo pipefail
cd "$(dirname "$0")/.."
ctest --test-dir build --output-on-failure --timeout 600 -j"$(nproc)" "$@"
