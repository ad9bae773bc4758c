# The engine with its platform metadata. Set DATABASE_URL for PostgreSQL; without it the embedded
# PGlite keeps its data in /app/data (a volume). No demo tenants unless SEED_DEMO_DATA=true.
#
# There is no Docker daemon in CI: `.ci/image-check` runs these steps (RUN, COPY, ENV, the CMD and the
# HEALTHCHECK) in a temporary folder instead, so keep to the instructions it knows (it says which it
# does not).

# Node 22, an LTS maintained until April 2027.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` builds, and the sources come below (no dependency needs
# an install script).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY engine ./engine
COPY actions ./actions
COPY demo ./demo
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 DATA_DIR=/app/data/pglite SEED_DEMO_DATA=false
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY metadata ./metadata
COPY sql ./sql
# The demo data's SQL files, for SEED_DEMO_DATA=true.
COPY demo ./demo
# The built image has no compiler: `npm start` and `npm run admin` run the built files as they are (no
# build step, no pre-script), so that `docker exec <container> npm run admin -- ...` goes through the
# running engine at once.
RUN npm pkg set scripts.start="node --max-semi-space-size=8 --max-old-space-size=256 --no-allocation-site-pretenuring --no-parallel-scavenge dist/engine/main.js" scripts.admin="node dist/engine/cli/admin.js" scripts.seed="node dist/demo/seed-cli.js" \
   scripts.metadata="node dist/engine/cli/metadata.js" scripts.schema="node dist/engine/cli/schema.js" \
 && npm pkg delete scripts.prestart scripts.preadmin scripts.preseed \
 && mkdir -p /app/data/pglite && chown -R node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The heap's bounds and how its young collections run, as npm start sets them (README "Memory").
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=256", "--no-allocation-site-pretenuring", "--no-parallel-scavenge", "dist/engine/main.js"]
