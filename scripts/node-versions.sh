#!/usr/bin/env bash
# `npm run test:node-versions`: the SDK's tests and a smoke of the gateway itself (build, `npm start`'s
# serve process, the README's walk-through calls: test/cli.test.ts) on each Node major that
# merchants run besides the one of the machine (issue 29, docs/sdk.md). Each Node comes from the npm
# registry's `node` package, installed in a cache folder outside the repository: nothing is
# downloaded from anywhere else.
set -euo pipefail
cd "$(dirname "$0")/.."

majors=("${@:-22 24}")
# shellcheck disable=SC2206 # "22 24" as one argument splits into majors
majors=(${majors[*]})
cache="${NODE_VERSIONS_CACHE:-${TMPDIR:-/tmp}/pix-gateway-node-versions}"

for major in "${majors[@]}"; do
  prefix="$cache/$major"
  bin="$prefix/node_modules/node/bin"
  if ! "$bin/node" --version 2>/dev/null | grep -q "^v$major\."; then
    echo "Installing node@$major from the npm registry into $prefix…"
    rm -rf "$prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --foreground-scripts "node@$major" >/dev/null
  fi
  version="$("$bin/node" --version)"
  if [[ "$version" != "v$major."* ]]; then
    echo "node@$major from the npm registry answers $version" >&2
    exit 1
  fi
  echo "== Node $version: build, the SDK's tests, the gateway's smoke =="
  # npm, npx and every child process the tests start (process.execPath) run on this Node.
  PATH="$bin:$PATH" node scripts/build.mjs
  PATH="$bin:$PATH" "$bin/node" node_modules/vitest/vitest.mjs run test/sdk test/cli.test.ts
done
