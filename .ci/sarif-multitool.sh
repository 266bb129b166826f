#!/usr/bin/env bash
# Microsoft's SARIF validator (the SARIF Multitool), pinned: `npm pack` of
# @microsoft/sarif-multitool-linux (a self-contained .NET binary; no install scripts run, no
# dependencies), checked against the pinned integrity and unpacked to .ci/sarif-multitool/
# (git-ignored). The tests run it as
#   Sarif.Multitool validate --rule-kind "Sarif;Gh" --output OUT.sarif FILE
# on our SARIF output (GitHub's ingestion rules included) and fail in CI when it is missing.
set -euo pipefail
cd "$(dirname "$0")"

name="@microsoft/sarif-multitool-linux"
version="5.7.0"
integrity="sha512-NxUbpq6ISCWoTQ/NfOYEwEDKq1Heka/rMoJ5R5LMydcAZQX/X7g5mWHcgxDub+0M07LC96tZ5LZHvF1Qy3gjTA=="
target="sarif-multitool"

if [ -f "$target/.version" ] && [ "$(cat "$target/.version")" = "$version $integrity" ]; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "sarif-multitool: npm is not installed (apt-get install npm)" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
packed="$(cd "$work" && npm pack --silent --json "$name@$version")"
got="$(printf '%s' "$packed" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].integrity))')"
if [ "$got" != "$integrity" ]; then
  echo "sarif-multitool: $name@$version has integrity $got, pinned $integrity" >&2
  exit 1
fi
rm -rf "$target"
mkdir -p "$target"
tar -xzf "$work"/microsoft-sarif-multitool-linux-"$version".tgz -C "$target" --strip-components=1
# What the package's postinstall script would do.
chmod u+x "$target/Sarif.Multitool"
if ! ran="$(DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 "$target/Sarif.Multitool" --version 2>&1)"; then
  echo "sarif-multitool: $name@$version does not run here: $ran" >&2
  exit 1
fi
echo "$version $integrity" >"$target/.version"
echo "sarif-multitool: $name@$version"
