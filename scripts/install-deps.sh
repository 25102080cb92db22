#!/usr/bin/env bash
# Installs everything wnn needs on Debian 12: build tools and libraries from apt, the ONNX
# Runtime reference from npm. Idempotent: installs only what is missing, and runs
# `apt-get update` only when something must be installed.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(
  build-essential cmake ninja-build pkg-config git clang-format ccache
  libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  libdnnl-dev libxnnpack-dev libpthreadpool-dev libfftw3-dev
  libcurl4-openssl-dev libssl-dev
  clang-14 libclang-rt-14-dev
  python3 python3-numpy python3-dev python3-pip python3-setuptools python3-wheel pybind11-dev python3-torch python3-torchvision python3-onnx
  libonnx-testdata
  nodejs npm
  chromium
)

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi

# Packages whose command may come from elsewhere: NodeSource's nodejs package bundles npm and
# conflicts with Debian's npm package, so asking apt for npm there would fail.
declare -A provided_by_command=([nodejs]=node [npm]=npm)

missing=()
for p in "${packages[@]}"; do
  if [ -n "${provided_by_command[$p]:-}" ] && command -v "${provided_by_command[$p]}" >/dev/null; then
    continue
  fi
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
fi

# npm packages, each directory from its lockfile (`npm ci`), again only when the lockfile changed
# since the last install.
npm_ci() {
  local dir="$1"
  [ -f "$dir/package-lock.json" ] || return 0
  if [ ! -f "$dir/node_modules/.package-lock.json" ] ||
     ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.wnn-installed-lock"; then
    echo "install-deps: npm ci in ${dir#"$here"/}" >&2
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
    cp "$dir/package-lock.json" "$dir/node_modules/.wnn-installed-lock"
  fi
}
# The ONNX Runtime reference (tools/ort-reference). Its install script would try to download
# GPU parts; the CPU library ships inside the npm tarball, so skip that step.
ONNXRUNTIME_NODE_INSTALL=skip npm_ci "$here/tools/ort-reference"
# The JavaScript WebNN package (js/): webidl2 for its IDL coverage test.
npm_ci "$here/js"
