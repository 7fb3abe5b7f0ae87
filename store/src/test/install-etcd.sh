#!/usr/bin/env bash
# Makes sure an etcd server is on PATH for the tests of the group of masters (issue 16):
# installs Debian's etcd-server package when it is missing. Prints the path of etcd.
set -euo pipefail

if command -v etcd >/dev/null 2>&1; then
  command -v etcd
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-etcd.sh: etcd is not on PATH and there is no apt-get to install it; install etcd 3.4 or newer" >&2
  exit 1
fi
sudo=""
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    echo "install-etcd.sh: etcd is not on PATH; installing it needs root (apt-get install etcd-server)" >&2
    exit 1
  fi
  sudo="sudo -n"
fi
# One install at a time when several test JVMs start together.
exec 9>/tmp/weightstore-install-etcd.lock
flock 9
if ! command -v etcd >/dev/null 2>&1; then
  echo "install-etcd.sh: installing Debian's etcd-server package" >&2
  $sudo apt-get update -qq >&2 || true
  if ! DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq etcd-server >&2; then
    echo "install-etcd.sh: apt-get install etcd-server failed; install etcd 3.4 or newer by hand" >&2
    exit 1
  fi
fi
command -v etcd
