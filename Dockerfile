# The dlsim image: the built CLI with its runtime dependencies, the shipped fault catalogs, the
# scenarios (sweep files under scenarios/sweeps/) and the trace samples, under /app.
#   docker build -t dlsim:0.1.0 .
#   docker run --rm dlsim:0.1.0 run scenarios/quickstart.yaml
#   docker run --rm -v "$PWD/results:/app/results" dlsim:0.1.0 sweep scenarios/sweeps/quick.yaml
# Sweep files and scenarios of your own: mount them (-v "$PWD/my:/app/my") or COPY them in an image
# built FROM this one; a path given to dlsim is relative to /app. Results go where --out says
# (default results/ under /app): mount a folder there, or the volume the Kubernetes Job mounts at
# /results (dlsim sweep --emit-k8s-job).

FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
# npm ci runs the build (prepare); the development dependencies are then dropped.
RUN npm ci && npm prune --omit=dev

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY src/faults/catalogs ./src/faults/catalogs
COPY scenarios ./scenarios
COPY traces ./traces
RUN mkdir -p /app/results && chown node:node /app/results
USER node
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["--help"]
