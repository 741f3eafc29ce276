#!/usr/bin/env bash
# Proves that `nest g resource` (schematics/) writes code that passes the project's checks
# with no hand edits, and edits no existing files but the five it owns: generates a resource
# in a scratch copy of the repository, builds, lints, typechecks and OpenAPI-lints it there,
# runs its service spec (each write's event published inside its transaction), its e2e spec
# (an outbox consumer gets the events once committed, none of a write rolled back with the
# transaction it joined) and the OpenAPI e2e spec (the committed document must be the one
# the app serves), then discards the copy.
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

# A repository of its own, so that git tells which existing files the schematic changed.
git init --quiet
git add --all
git -c user.name=check -c user.email=check@localhost commit --quiet --no-verify -m before

npx nest g resource owners --type rest --crud

changed="$(git diff --name-only)"
echo "Existing files changed by the schematic:"
echo "$changed"
# The module's registration, its OpenAPI tag, and what is regenerated from them: the document,
# the typed client and the scope table in docs/api.md.
allowed='^(src/app\.module\.ts|src/openapi/openapi-builder\.ts|openapi/openapi\.json|client/schema\.d\.ts|docs/api\.md)$'
if echo "$changed" | grep -vqE "$allowed"; then
  echo "nest g resource changed an existing file it has no business with" >&2
  exit 1
fi
if ! echo "$changed" | grep -qx 'src/app.module.ts'; then
  echo "nest g resource did not register the module in src/app.module.ts" >&2
  exit 1
fi
for written in src/owners/owners.service.spec.ts test/e2e/owners/owners.e2e-spec.ts; do
  if [ ! -f "$written" ]; then
    echo "nest g resource did not write $written" >&2
    exit 1
  fi
done

npm run build
npm run format:check
npm run lint
npm run typecheck
# The document as the schematic left it (openapi:lint would regenerate it first).
npx spectral lint openapi/openapi.json --fail-severity=warn
npm run test:unit -- --runTestsByPath src/owners/owners.service.spec.ts
npm run test:e2e -- --runTestsByPath test/e2e/owners/owners.e2e-spec.ts \
  test/e2e/openapi/openapi.e2e-spec.ts
