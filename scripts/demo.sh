#!/usr/bin/env bash
# The README's main job. Until the ONNX importer lands it lists the operator table.
set -euo pipefail
build="${1:-build}"
"$build/wnn" ops | tail -n 1
