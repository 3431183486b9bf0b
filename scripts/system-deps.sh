#!/usr/bin/env bash
# Install the Debian packages the test suite needs (browser, database server); as root via apt, else name them.
set -euo pipefail

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
command -v runuser >/dev/null 2>&1 || need+=(util-linux)
((${#need[@]})) || exit 0

if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: installing ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
else
  echo "system-deps: missing Debian packages: ${need[*]}" >&2
  echo "system-deps: install them with: sudo apt-get install ${need[*]}" >&2
  echo "system-deps: (tests that need them will be skipped with a reason)" >&2
fi
