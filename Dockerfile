# The image of the api, the worker and the migrate step (see docker-compose.yml, README "Deploy").
# Two stages: `build` compiles TypeScript to dist/ with every dependency; the runtime stage gets
# production dependencies only, dist/ and the migrations, and runs as the unprivileged user `node`.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json prisma.config.ts ./
COPY prisma ./prisma
COPY scripts/bundle-workflows.ts ./scripts/
COPY src ./src
# The web console's sources and the SDK source it bundles: `npm run build` writes dist/console.
COPY console ./console
COPY packages/client/src ./packages/client/src
COPY scripts/build-console.ts ./scripts/
# `prisma generate` never runs the schema engine but insists that one exists (src/main/setup.ts).
RUN PRISMA_SCHEMA_ENGINE_BINARY=/usr/local/bin/node PRISMA_HIDE_UPDATE_MESSAGE=1 npx prisma generate \
    && npm run build

FROM node:24-bookworm-slim
# bubblewrap: the worker's sandbox; ca-certificates: TLS to model providers and Temporal Cloud.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
# --omit=optional as well: npm would otherwise install the Prisma CLI and TypeScript (optional peers
# of @prisma/client, ~200 MB) and swc's native compiler (only for bundling workflows at boot, which
# the prebuilt dist/workflow-bundle.js makes unnecessary). The Temporal core bridge ships binaries
# for every platform; only this one's is kept.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund \
    && npm cache clean --force \
    && find node_modules/@temporalio/core-bridge/releases -mindepth 1 -maxdepth 1 \
         ! -name "$(uname -m)-unknown-linux-gnu" -exec rm -rf {} +
COPY --from=build /app/dist ./dist
COPY prisma/migrations ./prisma/migrations
# The chat widget script the api serves at /widget.js (docs/widget.md).
COPY public ./public
# The data directory (workspaces, the sandbox's files) belongs to the unprivileged user, so a fresh
# named volume mounted here starts out owned by it too.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8000
# The api holds little but open streams: a 2 MiB young generation (default up to 32 MiB, tripled)
# and V8's memory-saving heuristics (smaller heap growth, earlier full collections) take its idle
# RSS from ~195 to ~140 MiB and an open SSE stream from ~100 to ~25-30 KB, for more frequent,
# short collections. Same as `npm run start:api`.
CMD ["node", "--max-semi-space-size=2", "--optimize-for-size", "dist/main/api.js"]
