#!/bin/sh
# The container image's root file system, apart from the CLI that Jib lays out under /app: a Java
# runtime linked out of the JDK that runs the build, the shared libraries it and the CLI's native
# code (RocksDB, Netty, the CRC32C loop) load, /bin/sh for the launcher, and the few files a JVM
# expects. The image starts FROM scratch, so building it needs no container registry, only this
# machine's JDK and C library: the image runs the same glibc the build machine has.
#   runtime.sh JDK LIBS OUT    JDK: its home; LIBS: the CLI's jars; OUT: the directory to fill
set -eu
if [ $# -ne 3 ]; then
  echo "usage: runtime.sh JDK LIBS OUT" >&2
  exit 2
fi
jdk=$1 libs=$2 out=$3

# java.se for the libraries, jdk.unsupported for Netty and gRPC, the Vector API for Jlama; jdk.jfr
# and jdk.management for diagnostics on a running server; jdk.crypto.cryptoki for PKCS#11 keys.
modules=java.se,jdk.unsupported,jdk.incubator.vector,jdk.management,jdk.jfr,jdk.crypto.cryptoki,jdk.zipfs,jdk.net

rm -rf "$out"
mkdir -p "$out/opt" "$out/tmp" "$out/etc" "$out/bin" "$out/var/lib/weightstore"
"$jdk/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$out/opt/java" \
  2>&1 | grep -v 'incubator modules' >&2 || true
[ -x "$out/opt/java/bin/java" ] || { echo "runtime.sh: jlink made no runtime in $out/opt/java" >&2; exit 1; }
# The CLI is headless: the X11 and sound parts of java.desktop would pull in X libraries for nothing.
rm -f "$out/opt/java/lib/libawt_xawt.so" "$out/opt/java/lib/libjawt.so" "$out/opt/java/lib/libsplashscreen.so" \
  "$out/opt/java/lib/libjsound.so"

# Native code that the CLI's jars unpack at run time, for this architecture.
natives=$(mktemp -d)
trap 'rm -rf "$natives"' EXIT
for jar in "$libs"/*.jar; do
  unzip -Z1 "$jar" 2>/dev/null | grep -E '\.so$' | grep -E 'x86_64|x86-64|amd64|linux64|crc32c' | grep -v -E 'aarch|riscv|ppc|s390' |
    while read -r entry; do unzip -o -q -j "$jar" "$entry" -d "$natives/$(basename "$jar")"; done
done

# Every shared library any of them needs, with the dynamic loader, at the path the host has it.
copy() {
  mkdir -p "$out$(dirname "$1")"
  cp -L "$1" "$out$1"
}
{
  echo /bin/dash
  echo "$out/opt/java/bin/java"
  find "$out/opt/java/lib" "$natives" -name '*.so'
} | while read -r elf; do ldd "$elf" 2>/dev/null || true; done |
  sed -n -e 's/.*=> \(\/[^ ]*\).*/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' | grep -v "^$out" | sort -u |
  while read -r lib; do copy "$lib"; done
missing=$({ echo "$out/opt/java/bin/java"; find "$natives" -name '*.so'; } | while read -r elf; do ldd "$elf" 2>&1; done |
  grep 'not found' || true)
if [ -n "$missing" ]; then
  echo "runtime.sh: libraries not found on this machine: $missing" >&2
  exit 1
fi
cp -L /bin/dash "$out/bin/sh"

# Names for the two users the image knows: the JVM looks its user up for user.name and user.home.
printf 'root:x:0:0:root:/root:/bin/sh\nweightstore:x:65532:65532:weightstore:/var/lib/weightstore:/bin/sh\n' >"$out/etc/passwd"
printf 'root:x:0:\nweightstore:x:65532:\n' >"$out/etc/group"
