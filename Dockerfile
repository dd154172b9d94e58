# The Latchkey images. The default target (the last stage) is the production image: identity,
# tokens, content-state, gateway and the latchkey CLI, no mock identity provider. The `mock`
# target is mock-idp alone, for docker-compose.mock.yml (demos and tests, never production).
#   docker build -t latchkey .
#   docker build --target mock -t latchkey-mock .
#   docker run --rm latchkey tokens keygen      # e.g. with SIGNING_KEYS_DIR on a mounted folder
# The builder is Debian 12 like the runtime, so the C libraries match (libhiredis 0.14); another
# Swift 6 image on Debian 12 is chosen with e.g. --build-arg SWIFT_IMAGE=swift:6.2-bookworm.
# Without a registry, scripts/compose-check makes the base images locally and passes them as
# SWIFT_IMAGE and RUNTIME_IMAGE (README, "Deployment check"). It builds the `runtime` stage from
# here and adds the binaries it built on the host (Debian 12 too) as the last two stages do
# (scripts/lib/compose-check/images.Containerfile: keep the two in step).
ARG SWIFT_IMAGE=swift:6.3-bookworm
ARG RUNTIME_IMAGE=debian:bookworm-slim

# --- build ---------------------------------------------------------------------------------
FROM ${SWIFT_IMAGE} AS build
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq-dev libhiredis-dev libssl-dev pkg-config make gcc bzip2 \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src

# libpq without GSSAPI and LDAP, built from Debian's source package and linked into the
# services (scripts/lib/libpq.sh: Debian's libpq5 loads about twenty libraries they never call).
# When it cannot be built, the services link the system's libpq, which the runtime keeps.
COPY scripts/lib/libpq.sh scripts/lib/libpq.sh
RUN bash -c 'source scripts/lib/libpq.sh && static_libpq /opt/libpq' || true

# Dependencies first: a change to the sources does not fetch them again.
COPY Package.swift ./
RUN swift package resolve

COPY . .
# The Swift runtime and FoundationEssentials (the services link no more of Foundation, and no
# ICU) are linked in statically, so the runtime image needs only hiredis, OpenSSL (libcrypto:
# tokens signs RS256 with it), libpq (when the step above could not build its own) and the
# system libraries.
# No DWARF (the symbol table stays, so backtraces name functions): a shorter build and a
# smaller image. mock-idp is built in the same step (SwiftPM in a later step would see every
# file of this layer as changed and build everything again) but staged apart: only the `mock`
# image gets it. The four services are one executable, `latchkey-services`, and `identity`,
# `tokens`, `content-state` and `gateway` are its small launchers (each sets the process tuning,
# docs/deploy.md "Tuning", and becomes `latchkey-services` running the service it is named
# after): the containers of one image then share its code pages. release-toolset.json puts each
# function in a section of its own, so the linker leaves out those nothing calls (the code the
# processes map is smaller: docs/benchmarks.md).
RUN set -eu; \
    if [ -f /opt/libpq/pkgconfig/libpq.pc ]; then export PKG_CONFIG_PATH=/opt/libpq/pkgconfig; fi; \
    for product in latchkey-services identity tokens content-state gateway latchkey mock-idp; do \
      swift build -c release --toolset release-toolset.json --static-swift-stdlib -debug-info-format none --product "$product"; \
    done; \
    bin=$(swift build -c release --toolset release-toolset.json -debug-info-format none --show-bin-path); \
    mkdir -p /staging /staging-mock; \
    cp "$bin/latchkey-services" "$bin/identity" "$bin/tokens" "$bin/content-state" "$bin/gateway" "$bin/latchkey" /staging/; \
    cp "$bin/mock-idp" /staging-mock/; \
    find "$bin" -maxdepth 1 -name '*.resources' -exec cp -R {} /staging/ \;

# --- the runtime both images share -----------------------------------------------------------
FROM ${RUNTIME_IMAGE} AS runtime
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get update \
    && apt-get install -y --no-install-recommends libpq5 libhiredis0.14 libssl3 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /nonexistent --shell /usr/sbin/nologin latchkey \
    && install -d -o latchkey -g latchkey -m 0700 /run/latchkey
COPY deploy/docker-entrypoint.sh /usr/local/bin/latchkey-entrypoint
COPY deploy/healthcheck.sh /usr/local/bin/latchkey-healthcheck
USER latchkey:latchkey
ENV ENVIRONMENT=production \
    LOG_FORMAT=json
ENTRYPOINT ["latchkey-entrypoint"]

# --- mock identity provider: docker build --target mock -t latchkey-mock . ------------------
FROM runtime AS mock
COPY --from=build /staging-mock/ /usr/local/bin/
EXPOSE 9400
CMD ["mock-idp"]

# --- production (the default target) ----------------------------------------------------------
FROM runtime AS production
COPY --from=build /staging/ /usr/local/bin/
EXPOSE 8080 7001 7002 7003 9000 9001 9002 9003
CMD ["gateway"]
