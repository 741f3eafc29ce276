#!/usr/bin/env bash
# Proves that `nest g resource` (schematics/) writes code that passes the project's checks
# with no hand edits: generates a resource in a scratch copy of the repository, builds,
# lints, typechecks and OpenAPI-lints it there, runs its e2e spec, then discards the copy.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# Everything but git's store and what builds and tests write; node_modules is linked, not copied.
tar -C "$root" \
  --exclude=./.git --exclude=./node_modules --exclude=./dist --exclude=./dist-bench \
  --exclude=./coverage --exclude=./data --exclude=./test/artifacts \
  -cf - . | tar -C "$scratch" -xf -
ln -s "$root/node_modules" "$scratch/node_modules"
cd "$scratch"

npx nest g resource owners
npm run build
npm run format:check
npm run lint
npm run typecheck
# Regenerates the scratch copy's document (it gains the new routes) and lints it.
npm run openapi:lint
npm run test:e2e -- --runTestsByPath test/e2e/owners.e2e-spec.ts
