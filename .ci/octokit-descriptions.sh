#!/usr/bin/env bash
# GitHub's own published descriptions of its API, pinned: the GraphQL schema, the REST
# OpenAPI descriptions (api.github.com and GHES) and the webhook payload examples. Fetched
# with `npm pack` (no install scripts, no dependencies), checked against the pinned
# integrity, unpacked to .ci/octokit/<name>/ (git-ignored).
#
# The tests keep only the parts they need in tests/fixtures/github/; with the packages
# here, `cargo test` also checks that those parts equal a fresh extraction (so the test
# data cannot drift from the pinned versions), and
#   REVIEW_CONSENSUS_BLESS_GITHUB=1 cargo test --test it github_descriptions
# rewrites them after a version bump here.
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  "graphql-schema 15.26.1 sha512-RFDC2MpRBd4AxSRvUeBIVeBU7ojN/SxDfALUd7iVYOSeEK3gZaqR2MGOysj4Zh2xj2RY5fQAUT+Oqq7hWTraMA=="
  "openapi 23.0.2 sha512-pV8M7L9GY23AybNvTmo2nyjmpmnt6+2sRE/tqr0ZLQcPS4lnw7u5eZGNmwRNkBC3D7gZXbFx5AHzLUVRBXGDhg=="
  "webhooks-examples 7.6.1 sha512-De6U3XB6O3DtCa7bKgCMzTHdeopqqZ6SNivMYJnK65ierKL1AnNIA0tkRYCRS7lwGT792d+Ps1WbfHlso6MynQ=="
)

if ! command -v npm >/dev/null; then
  echo "octokit descriptions: npm is not installed (apt-get install npm)" >&2
  exit 1
fi
mkdir -p octokit
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for entry in "${packages[@]}"; do
  read -r name version integrity <<<"$entry"
  target="octokit/$name"
  if [ -f "$target/.version" ] && [ "$(cat "$target/.version")" = "$version $integrity" ]; then
    continue
  fi
  packed="$(cd "$work" && npm pack --silent --json "@octokit/$name@$version")"
  got="$(printf '%s' "$packed" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].integrity))')"
  if [ "$got" != "$integrity" ]; then
    echo "octokit descriptions: @octokit/$name@$version has integrity $got, pinned $integrity" >&2
    exit 1
  fi
  rm -rf "$target"
  mkdir -p "$target"
  tar -xzf "$work"/octokit-"$name"-"$version".tgz -C "$target" --strip-components=1
  echo "$version $integrity" >"$target/.version"
  echo "octokit descriptions: @octokit/$name@$version"
done
