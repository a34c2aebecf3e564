#!/bin/sh
# screenshot.sh PAGE PNG WIDTH HEIGHT - renders PAGE (a local file) with
# headless Chromium into PNG.  The flags keep it off the network: without
# them it stalls on this closed network (issue 5).  A fresh profile each time.
set -eu
[ $# = 4 ] || { echo "usage: screenshot.sh PAGE PNG WIDTH HEIGHT" >&2; exit 2; }
command -v chromium >/dev/null 2>&1 || { echo "screenshot.sh: chromium is not installed (make deps)" >&2; exit 1; }
page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
profile=$(mktemp -d "${TMPDIR:-/tmp}/chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT
rm -f "$2"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --window-size="$3,$4" --screenshot="$2" \
    "file://$page" > "$profile.log" 2>&1 || { cat "$profile.log" >&2; rm -f "$profile.log"; exit 1; }
rm -f "$profile.log"
[ -s "$2" ] || { echo "screenshot.sh: chromium wrote no $2" >&2; exit 1; }
