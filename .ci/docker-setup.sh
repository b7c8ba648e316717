#!/usr/bin/env bash
# Sourced by .ci/run: makes a Docker engine, Compose and the node image available to
# DockerComposeTest, on a machine that may have only the docker client.
#
#   ci_docker_setup   installs Debian's docker.io / docker-compose / debootstrap when missing, starts
#                     dockerd when no engine answers, builds a Debian base image with debootstrap
#                     when the default base cannot be had, builds the node image; on success exports
#                     CHORUS_REQUIRE_DOCKER and CHORUS_DOCKER_IMAGE, so that the test must run.
#   ci_docker_stop    stops the dockerd that ci_docker_setup started (and its containers).
#
# What the machine may lack (packages, an engine that can start) makes the setup give up with a
# warning, and the test is then skipped; a failure to build the image is the project's own and
# fails the run.

ci_docker_pid=""

ci_docker_setup() {
    local sudo=()
    [ "$(id -u)" = 0 ] || sudo=(sudo)
    local need=()
    command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
    docker compose version >/dev/null 2>&1 || command -v docker-compose >/dev/null 2>&1 || need+=(docker-compose)
    command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
    if [ ${#need[@]} -gt 0 ]; then
        echo "docker: installing ${need[*]}"
        "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 || true
        if ! "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
            "${need[@]}" >/tmp/chorus-ci-docker-apt.log 2>&1; then
            echo "docker: WARNING: could not install ${need[*]} (see /tmp/chorus-ci-docker-apt.log);" \
                "DockerComposeTest will be skipped"
            return 0
        fi
    fi
    if ! docker info >/dev/null 2>&1; then
        echo "docker: starting dockerd"
        "${sudo[@]}" dockerd --storage-driver=vfs >/tmp/chorus-ci-dockerd.log 2>&1 &
        ci_docker_pid=$!
        local i
        for i in $(seq 1 60); do
            docker info >/dev/null 2>&1 && break
            sleep 1
        done
        if ! docker info >/dev/null 2>&1; then
            echo "docker: WARNING: dockerd did not start (see /tmp/chorus-ci-dockerd.log);" \
                "DockerComposeTest will be skipped"
            ci_docker_stop
            return 0
        fi
    fi
    local base=debian:bookworm-slim
    if ! docker image inspect "$base" >/dev/null 2>&1; then
        # No image registry here: the same Debian release, bootstrapped from Debian's packages, with
        # OpenSSL's libcrypto (which the Dockerfile would otherwise fetch with apt, from inside the build).
        base=chorus-base:bookworm-libssl3
        if ! docker image inspect "$base" >/dev/null 2>&1; then
            echo "docker: building $base with debootstrap"
            local rootfs
            rootfs="$(mktemp -d)"
            if ! "${sudo[@]}" debootstrap --variant=minbase --include=libssl3 bookworm "$rootfs" \
                >/tmp/chorus-ci-debootstrap.log 2>&1; then
                echo "docker: WARNING: debootstrap failed (see /tmp/chorus-ci-debootstrap.log);" \
                    "DockerComposeTest will be skipped"
                "${sudo[@]}" rm -rf "$rootfs"
                return 0
            fi
            # mktemp made the directory 0700, and it becomes the image's /: the image's own user needs 0755.
            "${sudo[@]}" chmod 755 "$rootfs"
            "${sudo[@]}" tar -C "$rootfs" -c . | docker import - "$base" >/dev/null
            "${sudo[@]}" rm -rf "$rootfs"
        fi
    fi
    docker/build-image.sh --tag chorus:ci --base "$base"
    # The image runs as its own unprivileged user (Compose runs it as this machine's user instead).
    if ! docker run --rm chorus:ci --version >/tmp/chorus-ci-image-version.log 2>&1; then
        echo "docker: the image does not run as its own user:" >&2
        cat /tmp/chorus-ci-image-version.log >&2
        return 1
    fi
    export CHORUS_REQUIRE_DOCKER=1 CHORUS_DOCKER_IMAGE=chorus:ci
}

ci_docker_stop() {
    if [ -n "$ci_docker_pid" ]; then
        echo "docker: stopping dockerd"
        local sudo=()
        [ "$(id -u)" = 0 ] || sudo=(sudo)
        "${sudo[@]}" kill "$ci_docker_pid" 2>/dev/null || true
        wait "$ci_docker_pid" 2>/dev/null || true
        ci_docker_pid=""
    fi
}
