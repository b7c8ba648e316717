# Sourced by ./chorus, ./build and .ci/run: points JAVA_HOME at a JDK 25, or explains what is missing.
chorus_java_is_25() {
    [ -x "$1/bin/java" ] && "$1/bin/java" -version 2>&1 | head -n 1 | grep -Eq 'version "25([."]|$)'
}

chorus_find_java_home() {
    if [ -n "${JAVA_HOME:-}" ] && chorus_java_is_25 "$JAVA_HOME"; then
        return 0
    fi
    local candidate
    for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25* /usr/lib/jvm/*-25-* /usr/lib/jvm/jdk-25*; do
        if chorus_java_is_25 "$candidate"; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    done
    if command -v java >/dev/null 2>&1; then
        candidate=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        if chorus_java_is_25 "$candidate"; then
            export JAVA_HOME="$candidate"
            return 0
        fi
    fi
    echo "chorus: JDK 25 not found: set JAVA_HOME to a JDK 25 (Temurin 25 is expected under /usr/lib/jvm)" >&2
    return 1
}
