#!/usr/bin/env bash
# Builds the Chorus node image from docker/Dockerfile: the jars (Maven), a jlink'ed Java 25 runtime
# with only the modules they use, and the image itself.
#
#   docker/build-image.sh [--tag TAG] [--base IMAGE] [--no-build]
#
#   --tag TAG      the image's name (default chorus:latest, what 'chorus testnet compose' uses)
#   --base IMAGE   the base image (default debian:bookworm-slim)
#   --no-build     use the jars already in cli/target instead of building them
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tag=chorus:latest
base=""
build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --tag) tag="$2"; shift 2 ;;
        --base) base="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        *) echo "usage: $0 [--tag TAG] [--base IMAGE] [--no-build]" >&2; exit 2 ;;
    esac
done
if ! docker info >/dev/null 2>&1; then
    echo "build-image: no Docker engine answers ('docker info' failed); start one and retry" >&2
    exit 1
fi
. "$root/scripts/java-home.sh"
chorus_find_java_home
if [ "$build" = 1 ]; then
    echo "== building the jars" >&2
    (cd "$root" && PATH="$JAVA_HOME/bin:$PATH" mvn -B -q -ntp -DskipTests package)
fi
jar="$root/cli/target/chorus.jar"
if [ ! -f "$jar" ] || [ ! -d "$root/cli/target/lib" ]; then
    echo "build-image: no $jar (run without --no-build)" >&2
    exit 1
fi
context="$root/docker/target/context"
rm -rf "$context"
mkdir -p "$context"
cp "$jar" "$context/chorus.jar"
cp -r "$root/cli/target/lib" "$context/lib"
modules="$("$JAVA_HOME/bin/jdeps" --ignore-missing-deps --print-module-deps --multi-release 25 \
    --class-path "$context/lib/*" "$context/chorus.jar" | tail -n 1)"
echo "== jlink $modules" >&2
"$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
    --compress zip-6 --output "$context/jre"
cp "$root/docker/Dockerfile" "$root/docker/chorus" "$context/"
echo "== docker build -t $tag ${base:+(base $base)}" >&2
docker build ${base:+--build-arg "BASE=$base"} -t "$tag" "$context"
echo "== built $tag: $(docker image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MiB", $1 / 1048576}')" >&2
