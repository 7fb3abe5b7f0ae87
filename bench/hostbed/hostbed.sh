#!/usr/bin/env bash
# hostbed.sh: emulated hosts on this machine, for cluster benchmarks and failure tests.
#
# A bed is N hosts, each a network namespace with one NIC (a veth pair), all plugged into a bridge
# that lives in a namespace of its own. Nothing is created in the machine's own (root) network
# namespace, and its interfaces and routes are never touched. Each host has one address on a
# private test subnet and no other route, so everything a host sends stays on the bed. Each NIC is
# shaped with tbf in both directions: egress on the host's end (what the host sends) and egress on
# the bridge's end (what it receives).
#
# Every process started on a host runs in the host's network namespace and in the host's private
# mount namespace, where a tmpfs of its own is mounted on the bed's private directory (the same
# path on every host, see 'info'). A node's pool file there is invisible to other hosts and to the
# machine, so a client on another host must read it over the bed's network.
#
# Everything is named PREFIX-... (PREFIX is wsbed followed by up to 4 of [a-z0-9]), and cleanup
# only ever touches names with the prefix.
#
# Usage: hostbed.sh [--prefix P] COMMAND [ARGS]
#   up --hosts N [--rate RATE] [--subnet CIDR] [--latency MS] [--tmpfs-size SIZE] [--owner PID]
#                     create the bed (after removing leftovers of an earlier run of the prefix).
#                     RATE: NUM[k|m|g]bit (default 1gbit), or none. --owner: tear the bed down
#                     when that process dies, even by SIGKILL (a watchdog polls it every second).
#   run [up options] -- CMD [ARGS]
#                     up, run CMD with WSBED_PREFIX and WSBED_SCRIPT set, and tear down when CMD
#                     exits, fails or is interrupted.
#   exec HOST CMD [ARGS]      run CMD on host HOST (0-based) in the foreground, in the current dir.
#   spawn HOST LOG CMD [ARGS] run CMD on HOST in the background in a session and process group of
#                     its own, output appended to LOG; prints its pid (teardown kills it).
#   addr HOST                 the host's address.
#   stats HOST                the host's NIC counters: tx_bytes rx_bytes (as the host sees them).
#   partition HOST | heal HOST  take the host's link down at the bridge (its cable pulled) / up.
#   freeze HOST | thaw HOST     SIGSTOP / SIGCONT every process on the host, and wait until each has
#                     stopped / continued.
#   info                      the bed as KEY=VALUE lines.
#   down                      kill every process on the bed's hosts and remove the bed.
#   cleanup [--all] [--force] remove what is left with the prefix (with --all: of every wsbed*
#                     prefix) unless its owner still runs (--force: even then).
#   probe                     report what this kernel can do (namespaces, veth, bridge, tbf, htb,
#                     netem, fq, ifb, mirred, police) in a scratch namespace.
#
# Exit status: 0 ok, 1 failure, 2 usage, 75 the prefix is in use by a live owner, 77 the bed cannot
# be made here (not root, a tool or kernel feature missing: a test should skip), 78 an option this
# kernel cannot honour (a non-zero --latency without netem).
set -euo pipefail

readonly EXIT_USAGE=2 EXIT_BUSY=75 EXIT_UNAVAILABLE=77 EXIT_UNSUPPORTED=78
readonly STATE_ROOT=${WSBED_STATE_DIR:-/run/wsbed}
readonly PREFIX_PATTERN='^wsbed[a-z0-9]{0,4}$'
readonly ANY_BED_NAME='^wsbed[a-z0-9]{0,4}-'
readonly GRACE_SECONDS=${WSBED_GRACE_SECONDS:-5}
SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
readonly SELF

P=${WSBED_PREFIX:-wsbed}

say() { echo "hostbed: $*" >&2; }
die() { say "$*"; exit 1; }
usage() { say "$*"; say "usage: hostbed.sh [--prefix P] up|run|exec|spawn|addr|stats|partition|heal|freeze|thaw|info|down|cleanup|probe ..."; exit $EXIT_USAGE; }
unavailable() { say "cannot make a host bed here: $*"; exit $EXIT_UNAVAILABLE; }

check_prefix() {
  [[ $1 =~ $PREFIX_PATTERN ]] || usage "prefix '$1' must be wsbed followed by at most 4 of [a-z0-9] (names stay under 16 characters, and cleanup finds them)"
}

state() { echo "$STATE_ROOT/$1"; }

# The tools and privileges every command needs; exits 77 with the reason when one is missing.
preflight() {
  [ "$(id -u)" -eq 0 ] || unavailable "it needs root (running as uid $(id -u)): network namespaces, veth pairs and tc qdiscs need CAP_NET_ADMIN and CAP_SYS_ADMIN"
  local tool
  for tool in ip tc nsenter unshare setsid flock mount; do
    command -v "$tool" >/dev/null 2>&1 || unavailable "'$tool' is not installed (iproute2 and util-linux are needed)"
  done
  mkdir -p "$STATE_ROOT" 2>/dev/null || unavailable "cannot create the state directory $STATE_ROOT"
}

# One lock for every bed on the machine: creation and teardown never interleave.
# Background processes must not inherit fd 8, or they would hold the lock for their lifetime.
lock() {
  exec 8<"$STATE_ROOT"
  flock 8
}

unlock() { exec 8<&-; }

# --- numbers ------------------------------------------------------------------------------------

# Bits per second from NUM[k|m|g|t]bit (case-insensitive); 0 for none.
parse_rate() {
  local r=${1,,}
  [ "$r" = none ] || [ "$r" = 0 ] && { echo 0; return; }
  [[ $r =~ ^([0-9]+)([kmgt]?)bit$ ]] || usage "rate '$1' is not NUM[k|m|g|t]bit (for example 200mbit, 1gbit) or none"
  local n=${BASH_REMATCH[1]} unit=${BASH_REMATCH[2]}
  case $unit in
    k) n=$((n * 1000)) ;; m) n=$((n * 1000000)) ;; g) n=$((n * 1000000000)) ;; t) n=$((n * 1000000000000)) ;;
  esac
  [ "$n" -gt 0 ] || usage "rate must be positive"
  echo "$n"
}

ip_to_int() {
  local a b c d
  IFS=. read -r a b c d <<<"$1"
  echo $(((a << 24) | (b << 16) | (c << 8) | d))
}

int_to_ip() { echo "$((($1 >> 24) & 255)).$((($1 >> 16) & 255)).$((($1 >> 8) & 255)).$(($1 & 255))"; }

# --- state --------------------------------------------------------------------------------------

load_state() {
  local s
  s=$(state "$P")
  [ -f "$s/bed" ] || die "no bed named $P is up (hostbed.sh --prefix $P up --hosts N)"
  # shellcheck disable=SC1091
  . "$s/bed"
}

host_index() {
  [[ $1 =~ ^[0-9]+$ ]] || usage "HOST must be a host number, found '$1'"
  [ "$1" -lt "$HOSTS" ] || usage "host $1 does not exist: the bed has hosts 0..$((HOSTS - 1))"
  echo "$1"
}

holder_of() {
  local pid
  pid=$(cat "$(state "$P")/holder.$1" 2>/dev/null) || die "host $1 has no holder process (was the bed torn down?)"
  kill -0 "$pid" 2>/dev/null || die "host $1's holder process $pid is gone (was the bed torn down?)"
  echo "$pid"
}

# Start time of a process in clock ticks since boot (field 22 of /proc/PID/stat), to tell a pid
# from a later process that reuses it.
start_time() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  stat=${stat##*) }
  awk '{print $20}' <<<"$stat"
}

owner_alive() {
  local s=$1 pid start
  [ -f "$s/owner" ] || return 1
  read -r pid start <"$s/owner"
  [ "$(start_time "$pid" 2>/dev/null)" = "$start" ]
}

# --- teardown -----------------------------------------------------------------------------------

# Namespaces of one prefix, or of every bed prefix when $1 is --all.
bed_namespaces() {
  local pattern="^$1-"
  [ "$1" = --all ] && pattern=$ANY_BED_NAME
  ip netns list 2>/dev/null | awk '{print $1}' | grep -E "$pattern" || true
}

# Kills every process whose network namespace is one of the given ones: SIGCONT (a frozen process
# cannot die of SIGTERM), SIGTERM, up to GRACE_SECONDS, then SIGKILL.
kill_namespaces() {
  local ns pids deadline
  pids=$(for ns in "$@"; do ip netns pids "$ns" 2>/dev/null; done | sort -u)
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill -CONT $pids 2>/dev/null || true
  # shellcheck disable=SC2086
  kill -TERM $pids 2>/dev/null || true
  deadline=$((SECONDS + GRACE_SECONDS))
  while :; do
    pids=$(for ns in "$@"; do ip netns pids "$ns" 2>/dev/null; done | sort -u)
    [ -n "$pids" ] || return 0
    [ $SECONDS -lt $deadline ] || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL $pids 2>/dev/null || true
  deadline=$((SECONDS + 5))
  while [ $SECONDS -lt $deadline ]; do
    pids=$(for ns in "$@"; do ip netns pids "$ns" 2>/dev/null; done | sort -u)
    [ -n "$pids" ] || return 0
    sleep 0.1
  done
  say "processes still in the bed's namespaces after SIGKILL: $pids"
}

# Removes everything of prefix $1: its watchdog, its spawned process groups, every process in its
# namespaces, the namespaces (and with them the veths, the bridge and the tmpfs mounts), any link
# with the prefix in the root namespace (there should be none), and its state. Call with the lock held.
teardown() {
  local prefix=$1 s pid
  s=$(state "$prefix")
  if [ -f "$s/watchdog" ]; then
    pid=$(cat "$s/watchdog")
    [ "$pid" = "$$" ] || kill -TERM "$pid" 2>/dev/null || true
  fi
  if [ -d "$s/spawned" ]; then
    for pid in $(ls "$s/spawned"); do
      # Only a group this script made (setsid: the group id is the leader's pid).
      if [ "$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')" = "$pid" ]; then
        kill -CONT -- "-$pid" 2>/dev/null || true
        kill -TERM -- "-$pid" 2>/dev/null || true
      fi
    done
  fi
  local namespaces
  mapfile -t namespaces < <(bed_namespaces "$prefix")
  if [ ${#namespaces[@]} -gt 0 ]; then
    kill_namespaces "${namespaces[@]}"
    local ns
    for ns in "${namespaces[@]}"; do
      ip netns delete "$ns" 2>/dev/null || say "could not delete namespace $ns"
    done
  fi
  local link
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^$prefix-" || true); do
    ip link delete "$link" 2>/dev/null || say "could not delete link $link"
  done
  rm -rf "$s"
}

# Prefixes with something on this machine: a state directory or a namespace.
known_prefixes() {
  { ls "$STATE_ROOT" 2>/dev/null | grep -E "$PREFIX_PATTERN" || true
    bed_namespaces --all | sed 's/-.*//'; } | sort -u
}

cmd_cleanup() {
  local all=false force=false
  while [ $# -gt 0 ]; do
    case $1 in
      --all) all=true ;;
      --force) force=true ;;
      *) usage "cleanup: unknown option $1" ;;
    esac
    shift
  done
  preflight
  lock
  local prefixes prefix
  if $all; then prefixes=$(known_prefixes); else prefixes=$P; fi
  for prefix in $prefixes; do
    if ! $force && owner_alive "$(state "$prefix")"; then
      say "bed $prefix is in use by its owner (pid $(awk '{print $1}' "$(state "$prefix")/owner")); left alone (--force removes it)"
      continue
    fi
    teardown "$prefix"
  done
}

cmd_down() {
  preflight
  lock
  teardown "$P"
}

# --- up -----------------------------------------------------------------------------------------

# Probes whether a qdisc kind can be added, in an existing scratch namespace and device.
qdisc_works() {
  local ns=$1 dev=$2
  shift 2
  if tc -n "$ns" qdisc add dev "$dev" root "$@" >/dev/null 2>&1; then
    tc -n "$ns" qdisc del dev "$dev" root >/dev/null 2>&1 || true
    return 0
  fi
  return 1
}

netem_available() {
  local ns=$P-probe
  ip netns add "$ns" 2>/dev/null || return 1
  local ok=1
  qdisc_works "$ns" lo netem delay 1ms && ok=0
  ip netns delete "$ns"
  return $ok
}

# tbf on one device: burst of 1 ms at the rate (at least 64 KiB, so a GSO packet passes whole),
# and a queue of 10 ms beyond the burst. Under --latency, netem delays first and tbf shapes after it.
shape() {
  local ns=$1 dev=$2 delay_us=$3
  [ "$RATE_BPS" -gt 0 ] || [ "$delay_us" -gt 0 ] || return 0
  local burst=$((RATE_BPS / 8 / 1000))
  [ $burst -ge 65536 ] || burst=65536
  local parent=(root)
  if [ "$delay_us" -gt 0 ]; then
    tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "${delay_us}us" limit 100000
    parent=(parent 1:1)
  fi
  if [ "$RATE_BPS" -gt 0 ]; then
    tc -n "$ns" qdisc add dev "$dev" "${parent[@]}" handle 10: tbf rate "${RATE_BPS}bit" burst "$burst" latency 10ms
  fi
}

cmd_up() {
  local hosts="" rate=1gbit subnet=10.213.0.0/24 latency=0 tmpfs_size=4g owner=""
  while [ $# -gt 0 ]; do
    case $1 in
      --hosts) hosts=${2:-}; shift ;;
      --rate) rate=${2:-}; shift ;;
      --subnet) subnet=${2:-}; shift ;;
      --latency) latency=${2:-}; shift ;;
      --tmpfs-size) tmpfs_size=${2:-}; shift ;;
      --owner) owner=${2:-}; shift ;;
      --prefix) P=${2:-}; check_prefix "$P"; shift ;;
      *) usage "up: unknown option $1" ;;
    esac
    shift
  done
  [[ $hosts =~ ^[0-9]+$ ]] && [ "$hosts" -ge 1 ] || usage "up: --hosts N (at least 1) is required"
  [[ $latency =~ ^([0-9]+)(\.([0-9]{1,3}))?$ ]] || usage "up: --latency takes milliseconds (at most 3 decimals), found '$latency'"
  local frac=${BASH_REMATCH[3]}000
  local latency_us=$((10#${BASH_REMATCH[1]} * 1000 + 10#${frac:0:3}))
  [[ $tmpfs_size =~ ^[0-9]+[kmgKMG]?$ ]] || usage "up: --tmpfs-size takes NUM[k|m|g], found '$tmpfs_size'"
  [ -z "$owner" ] || [[ $owner =~ ^[0-9]+$ ]] || usage "up: --owner takes a pid"
  RATE_BPS=$(parse_rate "$rate")
  [[ $subnet =~ ^([0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3})/([0-9]{1,2})$ ]] || usage "up: --subnet must be A.B.C.D/LEN, found '$subnet'"
  local len=${BASH_REMATCH[2]}
  [ "$len" -ge 8 ] && [ "$len" -le 30 ] || usage "up: --subnet length must be 8..30"
  local mask=$(((0xffffffff << (32 - len)) & 0xffffffff))
  local base=$(($(ip_to_int "${BASH_REMATCH[1]}") & mask))
  local size=$((1 << (32 - len)))
  [ "$hosts" -le $((size - 2)) ] || usage "up: $hosts hosts do not fit in $subnet"
  [ "$((base >> 24))" -ne 127 ] || usage "up: --subnet must not be in 127.0.0.0/8"

  preflight
  # The bed's addresses must not be the machine's own: refuse a subnet that holds any of them.
  local own
  for own in $(ip -4 -o addr show 2>/dev/null | awk '{print $4}' | cut -d/ -f1); do
    if [ $(($(ip_to_int "$own") & mask)) -eq "$base" ]; then
      usage "up: subnet $subnet holds this machine's address $own; pick another with --subnet"
    fi
  done
  if [ "$latency_us" -gt 0 ] && ! netem_available; then
    say "--latency $latency: this kernel has no netem qdisc (nor fq or etf, which could hold packets to a"
    say "departure time), so a delay cannot be added to the bed's links. Rates can be shaped (tbf), delays"
    say "cannot; refusing rather than faking one. Run with --latency 0."
    exit $EXIT_UNSUPPORTED
  fi

  lock
  local s
  s=$(state "$P")
  if owner_alive "$s"; then
    say "bed $P is in use by pid $(awk '{print $1}' "$s/owner"); pick another --prefix"
    exit $EXIT_BUSY
  fi
  # Leftovers: an earlier run of this prefix, and beds whose owner died with its watchdog.
  teardown "$P"
  local other
  for other in $(known_prefixes); do
    if [ "$other" != "$P" ] && [ -f "$(state "$other")/owner" ] && ! owner_alive "$(state "$other")"; then
      say "removing bed $other, left behind by a dead owner"
      teardown "$other"
    fi
  done
  mkdir -p "$s/spawned" "$s/private"
  trap 'teardown "$P"' EXIT
  trap 'exit 130' INT TERM

  local sw=$P-sw br=$P-br
  ip netns add "$sw" 2>"$s/err" || unavailable "cannot create a network namespace: $(cat "$s/err")"
  quiet_ipv6 "$sw"
  ip -n "$sw" link add "$br" type bridge 2>"$s/err" || unavailable "cannot create a bridge: $(cat "$s/err")"
  ip -n "$sw" link set "$br" up
  # A holder process keeps a mount namespace whose /sys shows the switch's links (for counters).
  start_holder "$sw" switch ""

  local i ns dev port addr
  for ((i = 0; i < hosts; i++)); do
    ns=$P-h$i dev=$P-h$i port=$P-p$i
    addr=$(int_to_ip $((base + 1 + i)))
    ip netns add "$ns"
    quiet_ipv6 "$ns"
    ip -n "$sw" link add "$port" type veth peer name "$dev" netns "$ns" 2>"$s/err" \
      || unavailable "cannot create a veth pair: $(cat "$s/err")"
    ip -n "$sw" link set "$port" master "$br"
    ip -n "$sw" link set "$port" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/$len" dev "$dev"
    ip -n "$ns" link set "$dev" up
    shape "$ns" "$dev" "$latency_us" 2>"$s/err" || unavailable "cannot shape $dev with tbf: $(cat "$s/err")"
    shape "$sw" "$port" 0 2>"$s/err" || unavailable "cannot shape $port with tbf: $(cat "$s/err")"
    start_holder "$ns" "$i" "$tmpfs_size"
    echo "host_$i=$addr" >>"$s/addresses"
  done

  {
    echo "PREFIX=$P"
    echo "HOSTS=$hosts"
    echo "SUBNET=$(int_to_ip "$base")/$len"
    echo "RATE_BPS=$RATE_BPS"
    echo "LATENCY_MS=$latency"
    echo "PRIVATE=$s/private"
    echo "BASE=$base"
  } >"$s/bed"
  if [ -n "$owner" ]; then
    local start
    start=$(start_time "$owner") || die "up: --owner $owner is not a running process"
    echo "$owner $start" >"$s/owner"
    setsid "$BASH" "$SELF" --prefix "$P" _watch "$owner" "$start" </dev/null >/dev/null 2>&1 8<&- &
    echo $! >"$s/watchdog"
  fi
  trap - EXIT INT TERM
  rm -f "$s/err"
  unlock
  cmd_info
}

# No IPv6 on the bed: no link-local addresses, router solicitations or DAD, only the test subnet.
quiet_ipv6() {
  [ -d /proc/sys/net/ipv6 ] || return 0
  ip netns exec "$1" sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6; echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6'
}

# A holder process per namespace: 'ip netns exec' gives it a mount namespace whose /sys is the
# namespace's; unshare gives it a private one where the host's tmpfs is mounted on the private
# directory. Commands on the host enter this holder's network and mount namespaces.
start_holder() {
  local ns=$1 name=$2 tmpfs_size=$3 s pid
  s=$(state "$P")
  if [ -n "$tmpfs_size" ]; then
    setsid ip netns exec "$ns" unshare --mount --propagation private -- sh -c \
      'mount -t tmpfs -o "size=$1,mode=0755" "$2" "$3" && exec sleep infinity' sh "$tmpfs_size" "$ns" "$s/private" \
      </dev/null >"$s/holder.$name.log" 2>&1 8<&- &
  else
    setsid ip netns exec "$ns" sleep infinity </dev/null >"$s/holder.$name.log" 2>&1 8<&- &
  fi
  pid=$!
  local deadline=$((SECONDS + 10))
  while [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != sleep ]; do
    kill -0 "$pid" 2>/dev/null || die "host $name could not start: $(cat "$s/holder.$name.log")"
    [ $SECONDS -lt $deadline ] || die "host $name did not start within 10 s"
    sleep 0.02
  done
  echo "$pid" >"$s/holder.$name"
  rm -f "$s/holder.$name.log"
}

cmd_watch() {
  local owner=$1 start=$2 s
  s=$(state "$P")
  while [ "$(start_time "$owner" 2>/dev/null)" = "$start" ]; do
    sleep 1
    # Torn down (or replaced) meanwhile: nothing left to watch.
    [ "$(cat "$s/watchdog" 2>/dev/null)" = "$$" ] || exit 0
  done
  lock
  [ "$(cat "$s/watchdog" 2>/dev/null)" = "$$" ] || exit 0
  teardown "$P"
}

cmd_run() {
  local up_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do up_args+=("$1"); shift; done
  [ "${1:-}" = -- ] && [ $# -ge 2 ] || usage "run: hostbed.sh run [up options] -- CMD [ARGS]"
  shift
  cmd_up "${up_args[@]}" >/dev/null
  trap 'lock; teardown "$P"' EXIT
  # CMD runs in the background so that a signal to this script is handled at once (bash runs traps
  # only after a foreground child ends); it keeps this script's stdin.
  WSBED_PREFIX=$P WSBED_SCRIPT=$SELF "$@" <&0 &
  local child=$! status=0
  # shellcheck disable=SC2064
  trap "kill -TERM $child 2>/dev/null; lock; teardown '$P'" EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  wait "$child" || status=$?
  exit $status
}

# --- per host -----------------------------------------------------------------------------------

cmd_info() {
  load_state
  local s i
  s=$(state "$P")
  echo "prefix=$PREFIX"
  echo "hosts=$HOSTS"
  echo "subnet=$SUBNET"
  echo "rate_bps=$RATE_BPS"
  echo "latency_ms=$LATENCY_MS"
  echo "private=$PRIVATE"
  echo "switch_ns=$PREFIX-sw"
  echo "switch_holder=$(cat "$s/holder.switch")"
  for ((i = 0; i < HOSTS; i++)); do
    echo "host.$i.ns=$PREFIX-h$i"
    echo "host.$i.addr=$(int_to_ip $((BASE + 1 + i)))"
    echo "host.$i.dev=$PREFIX-h$i"
    echo "host.$i.port=$PREFIX-p$i"
    echo "host.$i.holder=$(cat "$s/holder.$i")"
  done
}

cmd_addr() {
  load_state
  local i
  i=$(host_index "${1:-}")
  int_to_ip $((BASE + 1 + i))
}

cmd_stats() {
  load_state
  local i holder
  i=$(host_index "${1:-}")
  holder=$(holder_of "$i")
  local dir=/proc/$holder/root/sys/class/net/$P-h$i/statistics
  echo "$(cat "$dir/tx_bytes") $(cat "$dir/rx_bytes")"
}

cmd_exec() {
  load_state
  local i holder
  i=$(host_index "${1:-}")
  shift
  [ $# -ge 1 ] || usage "exec HOST CMD [ARGS]"
  holder=$(holder_of "$i")
  export WSBED_HOST=$i WSBED_ADDR WSBED_PRIVATE=$PRIVATE
  WSBED_ADDR=$(int_to_ip $((BASE + 1 + i)))
  exec nsenter --target "$holder" --mount --net --wd="$PWD" -- "$@"
}

cmd_spawn() {
  load_state
  local i log holder pid
  i=$(host_index "${1:-}")
  log=${2:-}
  shift 2 || true
  [ -n "$log" ] && [ $# -ge 1 ] || usage "spawn HOST LOG CMD [ARGS]"
  holder=$(holder_of "$i")
  export WSBED_HOST=$i WSBED_ADDR WSBED_PRIVATE=$PRIVATE
  WSBED_ADDR=$(int_to_ip $((BASE + 1 + i)))
  setsid nsenter --target "$holder" --mount --net --wd="$PWD" -- "$@" </dev/null >>"$log" 2>&1 &
  pid=$!
  echo "$i" >"$(state "$P")/spawned/$pid"
  echo "$pid"
}

cmd_link() {
  load_state
  local i
  i=$(host_index "${2:-}")
  ip -n "$P-sw" link set "$P-p$i" "$1"
}

cmd_signal() {
  load_state
  local i pids
  i=$(host_index "${2:-}")
  pids=$(ip netns pids "$P-h$i")
  [ -n "$pids" ] || return 0
  # shellcheck disable=SC2086
  kill "-$1" $pids 2>/dev/null || true
  # shellcheck disable=SC2086
  await_signal "$1" $pids
}

# Whether process $1 is stopped; a process gone counts as either.
stopped() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
  stat=${stat##*) }
  [ "${stat%% *}" = T ]
}

# Waits, 5 s at most, until every process named after signal $1 (STOP or CONT) is stopped, or no longer: a signal
# takes effect when its target next runs, which on a busy machine is not at once, and a caller that checks the host
# right after freezing it must find it frozen.
await_signal() {
  local signal=$1 pid deadline=$((SECONDS + 5))
  shift
  for pid in "$@"; do
    while [ $SECONDS -lt $deadline ]; do
      if [ "$signal" = STOP ]; then
        stopped "$pid" && break
      elif ! { [ -e "/proc/$pid" ] && stopped "$pid"; }; then
        break
      fi
      sleep 0.01
    done
  done
}

# --- probe --------------------------------------------------------------------------------------

cmd_probe() {
  preflight
  lock
  local ns=$P-probe
  # shellcheck disable=SC2064
  trap "ip netns delete '$ns' 2>/dev/null || true" EXIT
  ip netns add "$ns" 2>/dev/null || { echo "netns=no"; exit $EXIT_UNAVAILABLE; }
  echo "netns=yes"
  local veth=no bridge=no
  ip -n "$ns" link add "$P-a" type veth peer name "$P-b" 2>/dev/null && veth=yes
  ip -n "$ns" link add "$P-br" type bridge 2>/dev/null && bridge=yes
  echo "veth=$veth"
  echo "bridge=$bridge"
  [ $veth = yes ] || exit 0
  ip -n "$ns" link set "$P-a" up
  ip -n "$ns" link set "$P-b" up
  local q
  for q in "tbf rate 1gbit burst 64k latency 10ms" "htb" "netem delay 1ms" "fq" "etf" "fq_codel" "cake" "sfq" "prio"; do
    if qdisc_works "$ns" "$P-a" $q; then echo "qdisc.${q%% *}=yes"; else echo "qdisc.${q%% *}=no"; fi
  done
  local ifb=no mirred=no police=no
  ip -n "$ns" link add "$P-ifb" type ifb 2>/dev/null && ifb=yes
  if tc -n "$ns" qdisc add dev "$P-a" clsact 2>/dev/null; then
    echo "qdisc.clsact=yes"
    [ $ifb = yes ] && ip -n "$ns" link set "$P-ifb" up && tc -n "$ns" filter add dev "$P-a" ingress protocol all u32 match u32 0 0 \
      action mirred egress redirect dev "$P-ifb" 2>/dev/null && mirred=yes
    tc -n "$ns" filter add dev "$P-a" ingress protocol all u32 match u32 0 0 police rate 1mbit burst 10k drop 2>/dev/null && police=yes
  else
    echo "qdisc.clsact=no"
  fi
  echo "ifb=$ifb"
  echo "action.mirred=$mirred"
  echo "action.police=$police"
}

# --- main ---------------------------------------------------------------------------------------

while [ $# -gt 0 ]; do
  case $1 in
    --prefix) P=${2:-}; shift 2 ;;
    --prefix=*) P=${1#--prefix=}; shift ;;
    *) break ;;
  esac
done
check_prefix "$P"
[ $# -ge 1 ] || usage "a command is required"
command=$1
shift
case $command in
  up) cmd_up "$@" ;;
  run) cmd_run "$@" ;;
  exec) cmd_exec "$@" ;;
  spawn) cmd_spawn "$@" ;;
  addr) cmd_addr "$@" ;;
  stats) cmd_stats "$@" ;;
  partition) cmd_link down "$@" ;;
  heal) cmd_link up "$@" ;;
  freeze) cmd_signal STOP "$@" ;;
  thaw) cmd_signal CONT "$@" ;;
  info) cmd_info ;;
  down) cmd_down ;;
  cleanup) cmd_cleanup "$@" ;;
  probe) cmd_probe ;;
  _watch) cmd_watch "$@" ;;
  -h | --help | help) sed -n '2,/^set -euo/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//' ;;
  *) usage "unknown command '$command'" ;;
esac
