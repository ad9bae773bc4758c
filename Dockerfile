# The engine with its platform metadata. Set DATABASE_URL for PostgreSQL; without it the embedded
# PGlite keeps its data in /data (mount a volume there).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY engine ./engine
COPY actions ./actions
COPY demo ./demo
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY metadata ./metadata
COPY sql ./sql
COPY demo ./demo
RUN mkdir -p /data && chown node /data
USER node
EXPOSE 8080
CMD ["node", "dist/engine/main.js"]
