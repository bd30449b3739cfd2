#!/usr/bin/env bash
# The overview page is tested in headless Chromium from Debian's package (test tools never download browsers here).
# Installs it when it is missing and we may (root with apt-get); otherwise says what to install and fails, so the
# browser test never silently skips.
set -euo pipefail
bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$bin" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get > /dev/null 2>&1; then
  echo "Installing Debian's chromium for the browser test (one time)..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium > /dev/null
  "$bin" --version
  exit 0
fi
echo "error: CHROMIUM_PATH=$bin: Chromium not found. Install Debian's 'chromium' package (apt-get install chromium)" >&2
echo "       or point CHROMIUM_PATH at a Chromium binary." >&2
exit 1
