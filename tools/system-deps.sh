#!/usr/bin/env bash
# The Debian packages the tests need, checked before `npm test` (its pretest step) and by
# .ci/run, and installed when that can be done here: as root, or with sudo that asks for no
# password. Otherwise it stops at once with the one command to run.
#
#   bash tools/system-deps.sh            check, and install what is missing if it can
#   bash tools/system-deps.sh --check    only say what is missing (exit 1 if anything is)
#
# What each is for: dig (dnsutils) for the DNS servers' end-to-end tests; curl for the node
# agent's userspace proxy test; iptables and nftables for the real-parser and kernel tests of the
# generated rules (in throwaway network namespaces); ip (iproute2) and ping (iputils-ping) for the
# network-namespace lab (packages/netlab); etcd (etcd-server) for the etcd store's tests, which
# start a real etcd; chromium for the explorer's browser tests (playwright-core drives Debian's
# /usr/bin/chromium and downloads no browser of its own); fonts-dejavu-core for the fonts those
# tests draw their compared screenshots in (DejaVu Sans and Sans Mono); conntrack for the pod network's
# walk-through, which reads the node's connection tracking table; setpriv and script (util-linux) for
# the test that `kubesvc up --dataplane netns` without root is refused and for a tty in a pod's exec; python3, make and g++ for node-gyp,
# which `npm ci` runs to compile better-sqlite3 when no prebuilt addon fits the machine.
set -euo pipefail

need=()
command -v dig >/dev/null 2>&1 || need+=(dnsutils)
command -v curl >/dev/null 2>&1 || need+=(curl)
command -v ip >/dev/null 2>&1 || need+=(iproute2)
command -v ping >/dev/null 2>&1 || need+=(iputils-ping)
{ command -v iptables-nft-restore && command -v iptables-legacy-restore; } >/dev/null 2>&1 || need+=(iptables)
command -v nft >/dev/null 2>&1 || need+=(nftables)
[ -x /usr/bin/etcd ] || need+=(etcd-server)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
{ [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] && [ -f /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf ]; } || need+=(fonts-dejavu-core)
{ command -v setpriv && command -v script; } >/dev/null 2>&1 || need+=(util-linux)
command -v conntrack >/dev/null 2>&1 || need+=(conntrack)
command -v python3 >/dev/null 2>&1 || need+=(python3)
command -v make >/dev/null 2>&1 || need+=(make)
command -v g++ >/dev/null 2>&1 || need+=(g++)

if [ "${#need[@]}" -eq 0 ]; then exit 0; fi
command="apt-get update && apt-get install -y --no-install-recommends ${need[*]}"
if [ "${1:-}" = "--check" ]; then
  echo "system-deps: missing Debian packages: ${need[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "system-deps: the tests need ${need[*]} (Debian package names), and this machine has no apt-get: install their equivalents, then run the tests again" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo"
  else
    echo "system-deps: the tests need Debian packages that are not installed; as root, run:" >&2
    echo "  $command" >&2
    exit 1
  fi
fi
echo "system-deps: installing Debian packages: ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
