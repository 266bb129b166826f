# review-consensus: a static musl binary in an otherwise empty image.
#
# Three stages:
#   builder  compiles from source (what `image: Dockerfile` in a fork builds);
#   prebuilt the final image from a binary built outside, no base image pulled:
#            the release workflow and `.ci/container-smoke.sh` use it with
#            dist/<arch>/review-consensus (arch as in TARGETARCH: amd64, arm64);
#   runtime  the default (last) stage: the final image from the builder's binary.
# TLS roots are compiled into the binary (webpki roots), so scratch needs no CA bundle.
# The defect-class vocabulary compiled into the binary derives from MITRE's CWE, whose
# terms of use ask for their notice with every copy: /licenses/CWE-NOTICE.
# No USER and no WORKDIR: the runner mounts the workspace as root and sets --workdir.

FROM rust:1.95.0-alpine AS builder
# ring compiles C and needs the musl headers; the version follows the pinned base image.
# hadolint ignore=DL3018
RUN apk add --no-cache musl-dev
WORKDIR /src
COPY . .
RUN cargo build --release --locked \
    && cp target/release/review-consensus /review-consensus

FROM scratch AS prebuilt
ARG TARGETARCH=amd64
COPY data/CWE-NOTICE /licenses/CWE-NOTICE
COPY dist/${TARGETARCH}/review-consensus /review-consensus
ENTRYPOINT ["/review-consensus"]

FROM scratch AS runtime
COPY data/CWE-NOTICE /licenses/CWE-NOTICE
COPY --from=builder /review-consensus /review-consensus
ENTRYPOINT ["/review-consensus"]
