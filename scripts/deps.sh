#!/bin/sh
# deps.sh - install the Debian packages paptree needs (`make deps`).
#
# Quiet and fast (one dpkg-query) when everything is there, so that
# `make test` can depend on it.  As root it installs what is missing; as
# anyone else it prints the command to run and fails.  Safe to run again.
set -eu

# libxml2-utils (xmllint), chromium and python3 (reads its PNG) check papviz's
# SVG and HTML in the tests; iproute2 (ip) makes the network namespaces of
# tests/mpi/netns-tcp.sh.  clang builds the libFuzzer targets (make fuzz);
# its sanitizer and libFuzzer runtimes are in libclang-rt-14-dev, which clang
# only recommends (Debian 12's clang is 14).  valgrind shows the OTF2 fault of
# tests/otf2/empty-location.sh (in OTF2's uninstrumented code, where ASan
# sees nothing).
PKGS="openmpi-bin libopenmpi-dev libotf2-trace-dev libopen-trace-format2-dev
otf2-tools libsqlite3-dev sqlite3 pkg-config libxml2-utils chromium python3
iproute2 clang libclang-rt-14-dev valgrind"

# Prints the packages of $PKGS that are not installed, space-separated.
missing() {
    # dpkg-query fails for packages it has never heard of; those are missing
    # too, and the loop below finds them by their absence.
    # shellcheck disable=SC2086 # word splitting of $PKGS is wanted
    installed=$(dpkg-query -W -f='${Package} ${Status}\n' $PKGS 2>/dev/null |
                awk '$NF == "installed" && $(NF-1) == "ok" { printf "%s ", $1 }') || :
    out=""
    for p in $PKGS; do
        case " $installed" in
            *" $p "*) ;;
            *) out="$out $p" ;;
        esac
    done
    echo "${out# }"
}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "deps: not a Debian system; install Open MPI, OTF2 3.x, SQLite 3" \
         "and pkg-config by hand" >&2
    exit 1
fi

need=$(missing)
[ -z "$need" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing packages: $need" >&2
    echo "deps: run: sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive" \
         "apt-get install -y --no-install-recommends $need" >&2
    exit 1
fi

echo "deps: installing: $need"
apt-get -q update
# shellcheck disable=SC2086 # one word per package
DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends $need

need=$(missing)
if [ -n "$need" ]; then
    echo "deps: still missing after apt-get install: $need" >&2
    exit 1
fi
