# The image of the api and worker services (docker-compose.yml): the TypeScript sources run with tsx,
# exactly as `npm run api` / `npm run worker` run them outside a container, so there is no build step.
# Those scripts exec `node --import tsx`: no shell and no tsx wrapper process stand between npm and the
# service, so `docker stop`'s SIGTERM reaches it and it drains (a wrapper may SIGKILL it instead).
FROM node:20-bookworm-slim

ENV NODE_ENV=production
WORKDIR /app

# Dependencies first, so a source change reuses this layer. NODE_ENV=production leaves out the dev
# dependencies (typescript, eslint, vitest); tsx is a runtime dependency.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund && npm cache clean --force

COPY . .

# Nothing is written under /app at run time: in production the master key comes from the environment.
# Uploads go to DATA_DIR (/data in docker-compose.yml, a volume); a new volume takes this ownership.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["npm", "run", "api"]
