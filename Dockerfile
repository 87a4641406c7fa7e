# Image for the api and worker processes (see docker-compose.yml).
FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap ca-certificates \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN PRISMA_SCHEMA_ENGINE_BINARY=/usr/local/bin/node npx prisma generate
ENV NODE_ENV=production
CMD ["npm", "run", "api"]
