#!/usr/bin/env bash
# Jlama's model load in fresh JVMs, as a user starts one: 'generate --max-tokens 1 --json' through the
# launcher, its loadSeconds, from weightstore://ID and by Jlama's own loader from DIR (the same files,
# read once beforehand so that they are in the page cache), with the launcher's start-up cache and
# without it, in turns. Prints each round, then the medians and each source's ratio to the files.
#   bench/jlama-load-turns.sh ID DIR [ROUNDS]     (the store is the one the CLI selects, as for any verb)
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 CHECKPOINT_ID MODEL_DIR [ROUNDS]" >&2
  exit 2
fi
id=$1
dir=$2
rounds=${3:-9}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cat "$dir"/* >/dev/null

load_seconds() { # cache, model
  WEIGHTSTORE_AOT_CACHE=$1 "$root/weightstore" generate --model "$2" --prompt hi --max-tokens 1 --temperature 0 --json \
    2>/dev/null | sed -n 's/^ *"loadSeconds" *: *\([0-9.]*\).*/\1/p'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for round in $(seq "$rounds"); do
  line="round $round"
  for cache in on off; do
    store=$(load_seconds "$cache" "weightstore://$id") || store=
    files=$(load_seconds "$cache" "$dir") || files=
    if [ -z "$store" ] || [ -z "$files" ]; then
      echo "a load failed; run the generate command by hand to see why" >&2
      exit 1
    fi
    line="$line  cache $cache: store $store files $files"
    echo "$cache $store $files" >>"$results"
  done
  echo "$line"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# One column of a cache's rounds (2 store, 3 files, 4 their ratio), sorted; and the middle of sorted values.
column() {
  awk -v cache="$1" -v field="$2" '$1 == cache {$4 = $2 / $3; print $field}' "$results" | sort -g
}
middle() {
  awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
for cache in on off; do
  ratios=$(column "$cache" 4)
  printf "cache %s: median store %.3f s, files %.3f s, store / files %.2f (%.2f-%.2f)\n" "$cache" "$(column "$cache" 2 | middle)" \
    "$(column "$cache" 3 | middle)" "$(middle <<<"$ratios")" "$(head -1 <<<"$ratios")" "$(tail -1 <<<"$ratios")"
done
