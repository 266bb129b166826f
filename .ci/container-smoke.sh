#!/usr/bin/env bash
# Container smoke test: build the final image from the static release binary, run it as the
# runner would (GITHUB_* env, event payload, inputs as INPUT_*) against a fake GitHub API on
# 127.0.0.1 serving a fixture PR, and check the sticky comment, the outputs and the gate's
# exit code. Also runs `demo` and `doctor` (builds the HTTPS client: TLS roots are bundled)
# inside the image. Fails when README's container table is more than 5% off the binary and
# image sizes measured here (the numbers a user reads stay true).
#
# Needs: the musl release binary (cargo build --release --locked --target
# x86_64-unknown-linux-musl) and buildah (installed with apt-get when missing). No base
# image is pulled: the `prebuilt` stage starts FROM scratch. `podman run` does not work in
# our sandbox, so the image runs through `buildah from` + `buildah run --isolation=chroot`.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=x86_64-unknown-linux-musl
BIN="target/$TARGET/release/review-consensus"
IMAGE=localhost/review-consensus:smoke
FIXTURE=tests/fixtures/pr-101-three-bots
REPO=acme/payments-api
PR=101
MARKER='<!-- review-bot-ack -->'
MAX_BINARY=$((12 * 1024 * 1024))
MAX_IMAGE=$((15 * 1024 * 1024))
# How far README's sizes may drift from the measured ones (percent): a refit of
# data/matching-model.json or a small change does not need a README edit, a new dependency
# does.
README_TOLERANCE=5

SUDO=()
if [ "$(id -u)" -ne 0 ]; then SUDO=(sudo); fi

fail() {
  echo "container smoke test FAILED: $*" >&2
  exit 1
}

if ! command -v buildah >/dev/null 2>&1; then
  echo "buildah not found: installing it with apt-get"
  if ! { "${SUDO[@]}" apt-get update -qq && "${SUDO[@]}" apt-get install -y -qq buildah; }; then
    echo "SKIPPED: container smoke test: buildah could not be installed with apt-get"
    exit 0
  fi
fi
[ -x "$BIN" ] || fail "missing $BIN: run cargo build --release --locked --target $TARGET"

work="$(mktemp -d)"
ctr=""
fake_pid=""
cleanup() {
  if [ -n "$fake_pid" ]; then kill "$fake_pid" 2>/dev/null || true; fi
  if [ -n "$ctr" ]; then "${SUDO[@]}" buildah rm "$ctr" >/dev/null 2>&1 || true; fi
  "${SUDO[@]}" buildah rmi "$IMAGE" >/dev/null 2>&1 || true
  rm -f dist/amd64/review-consensus
  rmdir dist/amd64 dist 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# --- the binary: static, within budget -------------------------------------------------
binary_bytes="$(stat -c %s "$BIN")"
if command -v file >/dev/null 2>&1; then
  file "$BIN" | grep -Eq 'statically linked|static-pie linked' || fail "$BIN is not static: $(file "$BIN")"
fi
[ "$binary_bytes" -lt "$MAX_BINARY" ] || fail "binary is $binary_bytes bytes, budget $MAX_BINARY"

# --- the image: the prebuilt stage, FROM scratch ---------------------------------------
mkdir -p dist/amd64
cp "$BIN" dist/amd64/review-consensus
"${SUDO[@]}" buildah bud --quiet --isolation=chroot --build-arg TARGETARCH=amd64 \
  --target prebuilt -t "$IMAGE" . >/dev/null
ctr="$("${SUDO[@]}" buildah from "$IMAGE")"
# Sizes: the files in the image (uncompressed) and the archive a pull downloads.
rootfs="$("${SUDO[@]}" buildah mount "$ctr")"
image_bytes="$("${SUDO[@]}" du -sb "$rootfs" | cut -f1)"
"${SUDO[@]}" buildah umount "$ctr" >/dev/null
"${SUDO[@]}" buildah push --quiet "$IMAGE" "oci-archive:$work/image.tar" >/dev/null
pull_bytes="$(stat -c %s "$work/image.tar")"
[ "$image_bytes" -lt "$MAX_IMAGE" ] || fail "image is $image_bytes bytes, budget $MAX_IMAGE"
echo "binary: $binary_bytes bytes; image: $image_bytes bytes uncompressed, $pull_bytes bytes compressed"

# --- README's container table: the sizes a user reads, within README_TOLERANCE -------------
# The row whose first cell starts with $1: the number in its "(1,234,567 bytes)".
readme_bytes() {
  grep -F "| $1" README.md | head -n1 | grep -Eo '\(([0-9],?)+ bytes\)' | tr -dc '0-9'
}
# `8,123,456` and `8.1 MB` for a byte count (decimal megabytes, as README writes them).
as_readme() {
  printf '%s (%s bytes)' \
    "$(awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1000000 }')" \
    "$(printf '%s' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta')"
}
readme_stale=""
for row in "binary (:$binary_bytes" "image, uncompressed:$image_bytes" "image, compressed:$pull_bytes"; do
  label="${row%:*}"
  measured="${row##*:}"
  claimed="$(readme_bytes "$label")"
  if [ -z "$claimed" ]; then
    readme_stale="$readme_stale\n  README has no \"| $label...\" row with \"(N bytes)\""
    continue
  fi
  off=$(( claimed > measured ? claimed - measured : measured - claimed ))
  if [ $(( off * 100 )) -gt $(( measured * README_TOLERANCE )) ]; then
    readme_stale="$readme_stale\n  $label: README says $claimed bytes, measured $measured: write $(as_readme "$measured")"
  fi
done
[ -z "$readme_stale" ] \
  || fail "README's container table is more than ${README_TOLERANCE}% off:$(printf '%b' "$readme_stale")"
echo "README's container table is within ${README_TOLERANCE}% of these sizes"

in_container() {
  "${SUDO[@]}" buildah run --isolation=chroot "$@"
}

# --- what the gate should say: the same binary, offline, on the host --------------------
set +e
"$BIN" render "$FIXTURE" >"$work/render.md" 2>"$work/render.err"
expected_rc=$?
set -e
[ "$expected_rc" -le 1 ] || fail "render on the host exited $expected_rc: $(cat "$work/render.err")"
echo "expected gate exit code (render on the host): $expected_rc"

# --- the fake GitHub --------------------------------------------------------------------
cargo build --quiet --locked --example fake_github
: >"$work/fake.out"
target/debug/examples/fake_github --dir "$FIXTURE" --port 0 --log "$work/requests.log" \
  >"$work/fake.out" 2>"$work/fake.err" &
fake_pid=$!
base_url=""
for _ in $(seq 1 100); do
  base_url="$(grep -Eo 'http://127\.0\.0\.1:[0-9]+' "$work/fake.out" | head -n1 || true)"
  [ -n "$base_url" ] && break
  kill -0 "$fake_pid" 2>/dev/null || fail "fake GitHub exited: $(cat "$work/fake.err")"
  sleep 0.1
done
[ -n "$base_url" ] || fail "fake GitHub printed no base URL"
echo "fake GitHub at $base_url"

# --- the action run, as the runner starts it ---------------------------------------------
# The runner mounts its temp folders under /github; the event payload is a pull_request
# event built from the fixture's pull.json.
mkdir -p "$work/github/workflow" "$work/github/file_commands" "$work/github/runner_temp"
python3 - "$FIXTURE/pull.json" "$work/github/workflow/event.json" <<'PY'
import json, sys
pull = json.load(open(sys.argv[1]))
event = {"action": "synchronize", "number": pull["number"], "pull_request": pull,
         "repository": pull["base"]["repo"]}
json.dump(event, open(sys.argv[2], "w"))
PY
# One run of the action, as the runner starts it; sets action_rc.
run_action() {
  : >"$work/github/file_commands/output"
  : >"$work/github/file_commands/summary"
  set +e
  in_container -v "$work/github:/github" \
    --env GITHUB_ACTIONS=true --env CI=true \
    --env GITHUB_API_URL="$base_url" --env GITHUB_GRAPHQL_URL="$base_url/graphql" \
    --env GITHUB_SERVER_URL=https://github.com \
    --env GITHUB_REPOSITORY="$REPO" --env GITHUB_EVENT_NAME=pull_request \
    --env GITHUB_EVENT_PATH=/github/workflow/event.json \
    --env GITHUB_OUTPUT=/github/file_commands/output \
    --env GITHUB_STEP_SUMMARY=/github/file_commands/summary \
    --env RUNNER_TEMP=/github/runner_temp \
    --env INPUT_GITHUB-TOKEN=fake \
    --env REVIEW_CONSENSUS_WRITE_SPACING_MS=0 \
    "$ctr" -- /review-consensus >"$work/action.out" 2>"$work/action.err"
  action_rc=$?
  set -e
}
show_run() {
  echo "--- stdout"; cat "$work/action.out"
  echo "--- stderr"; cat "$work/action.err"
  echo "--- requests"; cat "$work/requests.log" 2>/dev/null || true
}
# The sticky comments the fake now holds: exactly one must start with the marker.
check_sticky() {
  python3 - "$base_url/repos/$REPO/issues/$PR/comments?per_page=100" "$MARKER" <<'PY' \
    || { show_run; fail "the fake does not hold exactly one comment starting with $MARKER"; }
import json, sys, urllib.request
comments = json.load(urllib.request.urlopen(sys.argv[1], timeout=10))
sticky = [c for c in comments if (c.get("body") or "").startswith(sys.argv[2])]
print(f"sticky comment {sticky[0]['id']}: {len(sticky[0]['body'])} chars" if len(sticky) == 1 else "")
sys.exit(0 if len(sticky) == 1 else 1)
PY
}
posts() {
  grep -c "^POST /repos/$REPO/issues/$PR/comments" "$work/requests.log" || true
}

run_action
if [ "$action_rc" -ne "$expected_rc" ]; then
  show_run
  fail "the action exited $action_rc, the gate says $expected_rc"
fi
[ "$(posts)" -eq 1 ] || { show_run; fail "expected one POST /repos/$REPO/issues/$PR/comments"; }
check_sticky
expected_gate=pass
[ "$expected_rc" -eq 1 ] && expected_gate=fail
grep -qx "gate=$expected_gate" "$work/github/file_commands/output" \
  || { show_run; fail "GITHUB_OUTPUT lacks gate=$expected_gate: $(cat "$work/github/file_commands/output")"; }
[ -s "$work/github/runner_temp/review-consensus.json" ] \
  || fail "no JSON report at \$RUNNER_TEMP/review-consensus.json"
echo "action: exit $action_rc, gate=$expected_gate, sticky comment posted"

# A second run (the next bot review) keeps the one comment: edited in place or left as it
# is, never posted again.
run_action
[ "$action_rc" -eq "$expected_rc" ] || { show_run; fail "second run exited $action_rc"; }
[ "$(posts)" -eq 1 ] || { show_run; fail "the second run posted a second comment"; }
check_sticky
echo "second run: exit $action_rc, still one sticky comment"

# --- demo and doctor inside the image ----------------------------------------------------
set +e
in_container "$ctr" -- /review-consensus demo >"$work/demo.out" 2>"$work/demo.err"
demo_rc=$?
set -e
[ "$demo_rc" -le 1 ] || fail "demo exited $demo_rc: $(cat "$work/demo.err")"
grep -qF "$MARKER" "$work/demo.out" || fail "demo printed no sticky comment: $(head -c 2000 "$work/demo.out")"
echo "demo: exit $demo_rc, $(wc -l <"$work/demo.out") lines"

in_container "$ctr" -- /review-consensus doctor >"$work/doctor.out" 2>"$work/doctor.err" \
  || fail "doctor failed: $(cat "$work/doctor.out" "$work/doctor.err")"
grep -q "OK" "$work/doctor.out" || fail "doctor did not print OK: $(cat "$work/doctor.out")"
echo "doctor: $(cat "$work/doctor.out")"

echo "container smoke test passed"
