# Sourced by ./weightstore and .ci/run: sets WEIGHTSTORE_JAVA_HOME to a JDK 25 or newer.
# Order: $JAVA_HOME when it is one, else the newest such JDK in Debian's JVM directory.

weightstore_jdk_major() {
  # Prints the feature version of the JDK at $1 (e.g. 25), or nothing when it is not a JDK.
  local release="$1/release"
  [ -x "$1/bin/javac" ] && [ -r "$release" ] || return 0
  sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release"
}

weightstore_find_jdk() {
  local required=25 candidate major best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ]; then
    major=$(weightstore_jdk_major "$JAVA_HOME")
    if [ -n "$major" ] && [ "$major" -ge "$required" ]; then
      WEIGHTSTORE_JAVA_HOME="$JAVA_HOME"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -d "$candidate" ] || continue
    major=$(weightstore_jdk_major "$candidate")
    if [ -n "$major" ] && [ "$major" -ge "$required" ] && [ "$major" -gt "$best_major" ]; then
      best="$candidate"
      best_major="$major"
    fi
  done
  if [ -z "$best" ]; then
    echo "weightstore: needs a JDK $required or newer; JAVA_HOME=${JAVA_HOME:-<unset>} is not one and none was found in /usr/lib/jvm." >&2
    echo "weightstore: install one (for example Debian's openjdk-25-jdk or Temurin 25) or point JAVA_HOME at it." >&2
    return 1
  fi
  WEIGHTSTORE_JAVA_HOME="$best"
}
