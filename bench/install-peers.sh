#!/usr/bin/env bash
# Installs the peers that 'weightstore bench compare' measures weightstore against, from Debian's
# packages, when they are missing: nginx (files over HTTP Range requests) and Redis (files as
# 64 MiB chunks); etcd, which 'bench master-scale' runs a group of masters on; and curl, the client
# of nginx in 'bench cluster'. The bench
# starts and stops its own instances on loopback; the system services these packages ship are
# not used.
set -euo pipefail

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v curl >/dev/null 2>&1 || missing+=(curl)

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-peers: nginx, redis-server, etcd and curl are already installed"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-peers: installing ${missing[*]}"
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
# Debian starts the packaged services; the bench runs its own instances, so stop those if any run.
for service in nginx redis-server etcd; do
  if command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null; then
    "${sudo_cmd[@]}" systemctl stop "$service" || true
  fi
done
echo "install-peers: done"
