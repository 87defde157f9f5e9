# mcpgen as a container: `docker build -t mcpgen .`, then
#   docker run --rm -p 8080:8080 -v $PWD/api.mcp.json:/config/api.mcp.json:ro mcpgen /config/api.mcp.json
# The entry point is `mcpgen serve --transport http`, listening on 0.0.0.0:8080 inside the
# container (publish the port on the host's loopback, or put a proxy in front: docs/deploy.md).

# Build stage: the release binary (symbols stripped by the release profile).
FROM rust:1-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
COPY templates ./templates
COPY benches ./benches
COPY examples ./examples
RUN cargo build --release --locked --bin mcpgen

# Runtime stage: Debian's slim image (glibc, CA certificates for https upstreams), no shell tools
# mcpgen does not need, a non-root user.
FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin mcpgen
COPY --from=build /src/target/release/mcpgen /usr/local/bin/mcpgen
USER 10001:10001
EXPOSE 8080
# Origin and Host checks stay on; behind a proxy, pass --allow-host / --allow-origin (docs/deploy.md).
ENTRYPOINT ["mcpgen", "serve", "--transport", "http", "--bind", "0.0.0.0:8080"]
