# One image for the three production processes (api, redirector, ingest); the command picks one.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
RUN npm install --no-audit --no-fund
COPY . .
ENV NODE_ENV=production
EXPOSE 3000 8080
CMD ["npm", "run", "start:api"]
