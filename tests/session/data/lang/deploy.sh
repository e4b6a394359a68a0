#!/usr/bin/env bash
set -euo pipefail

# Build the site.
build() {
    if [ -d dist ]; then
        rm -rf dist
    fi
    make all
}

deploy() {
    build
    rsync -a dist/ "$HOST:/srv"
}
