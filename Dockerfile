# syntax=docker/dockerfile:1
# Herald runs its TypeScript directly on Node 22 (type stripping): no build step, only production dependencies.
# test/ops/dockerfile.test.ts replays the COPY and npm ci steps below without Docker; keep them plain.

FROM node:22-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund

FROM node:22-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production STORE_URL=sqlite:///data/herald.sqlite PORT=3000
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY adapters ./adapters
COPY commands ./commands
RUN mkdir -p /data && chown node:node /data
# The code stays root-owned: the bot user can write only its data volume.
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# tini forwards SIGTERM to Node (which drains within 10 s) and reaps ffmpeg children.
ENTRYPOINT ["tini", "--"]
# node:sqlite is still experimental on Node 22; its one-line warning would only clutter the JSON logs.
CMD ["node", "--disable-warning=ExperimentalWarning", "adapters/cli/herald.ts"]
