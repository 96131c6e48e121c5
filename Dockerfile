# The image of the api and worker services (docker-compose.yml), built in one stage: every dependency
# installed, the server compiled to dist/ (`npm run build`: JavaScript with source maps, and the workflow
# bundle made once so a worker starts polling at once), then the dev dependencies pruned. With
# NODE_ENV=production, `npm run api` / `npm run worker` run dist/ with plain node, no TypeScript loader.
# Those scripts exec node: no shell or wrapper process stands between npm and the service, so
# `docker stop`'s SIGTERM reaches it through npm and it drains (a wrapper may SIGKILL it instead).
FROM node:20-bookworm-slim

WORKDIR /app

# The whole context at once (.dockerignore leaves out node_modules, dist, .data and .git): npm ci runs
# the workspaces' prepare scripts, which build the SDK and the dashboard (dashboard/dist, served by the
# API under /app/) from their sources.
COPY . .

# NODE_ENV is not production yet, so npm ci installs the dev dependencies the build needs (typescript,
# esbuild); the prune then leaves only what runs. It must not run the workspaces' prepare scripts again:
# the SDK's build needs typescript, which the prune has just removed. Files stay root's: the service only
# reads them.
RUN npm ci --no-audit --no-fund \
  && npm run build \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && npm cache clean --force

ENV NODE_ENV=production

# Nothing is written under /app at run time: in production the master key comes from the environment.
# Uploads go to DATA_DIR (/data in docker-compose.yml, a volume); a new volume takes this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
