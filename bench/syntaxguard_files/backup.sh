#!/usr/bin/env bash
# Back up a directory into a dated tarball, keeping the newest N.
set -euo pipefail

KEEP=${KEEP:-7}
DEST=${DEST:-/var/backups}

usage() {
    echo "usage: $(basename "$0") DIR [NAME]" >&2
    exit 2
}

log() {
    printf '%s %s\n' "$(date +%H:%M:%S)" "$*"
}

prune() {
    local name=$1
    local count=0
    for f in $(ls -1t "$DEST/$name"-*.tar.gz 2>/dev/null); do
        count=$((count + 1))
        if [ "$count" -gt "$KEEP" ]; then
            log "removing $f"
            rm -f -- "$f"
        fi
    done
}

main() {
    [ $# -ge 1 ] || usage
    local dir=$1
    local name=${2:-$(basename "$dir")}
    case "$dir" in
        /*) ;;
        *) dir="$PWD/$dir" ;;
    esac
    while [ ! -d "$DEST" ]; do
        mkdir -p "$DEST"
    done
    local out="$DEST/$name-$(date +%Y%m%d).tar.gz"
    tar -czf "$out" -C "$(dirname "$dir")" "$(basename "$dir")"
    log "wrote $out"
    prune "$name"
}

main "$@"
