#!/bin/sh
# The image's start-up caches (JDK 25's ahead-of-time cache): quickstarts run by the image's own
# launcher, on the image's own runtime, in a chroot laid out as the image will be (with the host's
# /dev, as a container has one), write /app/weightstore-jlama.aot for the verbs that run Jlama (a
# whole quickstart) and /app/weightstore.aot for the others (quickstart --no-generate, in a JVM
# without Jlama's Vector API module, as the launcher starts them); the same on a master and a node
# started on loopback (the hidden verb cluster-training) write weightstore-cluster-jlama.aot and
# weightstore-cluster.aot, for the commands that name a cluster. The JVM takes a cache only where the
# class path names the same jars, of the same sizes and modification times, in the same order: Jib
# gives every file the time 1 s after the epoch, and the launcher lists the jars in the shell's
# sorted order, so the copies here are made alike. Needs root, unshare and chroot; without them the
# image is built without a cache.
#   aot-cache.sh ROOT JIB JAR LIBS    ROOT: the image's root from runtime.sh, which gets the app/*.aot;
#                                     JIB: src/main/jib; JAR: the CLI's jar; LIBS: the jars it needs
set -eu
if [ $# -ne 4 ]; then
  echo "usage: aot-cache.sh ROOT JIB JAR LIBS" >&2
  exit 2
fi
root=$1 jib=$2 jar=$3 libs=$4

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null 2>&1 || ! command -v chroot >/dev/null 2>&1; then
  echo "aot-cache.sh: writing the start-up cache needs root, unshare and chroot; the image has none" >&2
  exit 0
fi

stage=$(mktemp -d)
log=$(mktemp)
trap 'rm -rf --one-file-system "$stage" "$log"' EXIT
trap 'exit 1' INT TERM
cp -a "$root/." "$stage/"
cp -a "$jib/." "$stage/"
mkdir -p "$stage/app/libs" "$stage/app/classpath" "$stage/proc" "$stage/dev"
cp "$libs"/*.jar "$stage/app/libs/"
cp "$jar" "$stage/app/classpath/"
find "$stage/app" -exec touch -h -d @1 {} +

# train NAME ARGS...: the launcher runs ARGS with JDK_JAVA_OPTIONS asking its JVM to write /app/NAME.aot.
train() {
  name=$1
  shift
  if ! env -i JAVA_HOME=/opt/java WEIGHTSTORE_HOME="/tmp/$name" JDK_JAVA_OPTIONS="-XX:AOTCacheOutput=/app/$name.aot" \
      unshare --fork --pid --mount --propagation private sh -c 'mount --bind "$0" "$0" && mount -t proc proc "$0/proc" \
        && mount --rbind /dev "$0/dev" && exec chroot "$0" /usr/local/bin/weightstore "$@"' \
      "$stage" "$@" >"$log" 2>&1 || [ ! -s "$stage/app/$name.aot" ]; then
    cat "$log" >&2
    echo "aot-cache.sh: the $* that writes the start-up cache $name.aot failed" >&2
    exit 1
  fi
  mkdir -p "$root/app"
  cp "$stage/app/$name.aot" "$root/app/$name.aot"
  echo "aot-cache.sh: $(du -h "$root/app/$name.aot" | cut -f1) start-up cache in $root/app/$name.aot"
}
train weightstore-jlama quickstart
train weightstore quickstart --no-generate
train weightstore-cluster-jlama cluster-training
train weightstore-cluster cluster-training --no-generate
