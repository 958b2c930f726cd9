import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IMAGE_CLI } from '../../src/sweep/k8s-job.js';
import { ROOT } from '../cli-run.js';

// Docker is not run here: the Dockerfile's text is checked against the repository and the Job's command.
describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const instructions = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

  it('builds on node:20-slim with npm ci and runs the built CLI the Job calls', () => {
    expect(instructions.filter((line) => line.startsWith('FROM ')).every((line) => line.startsWith('FROM node:20-slim'))).toBe(true);
    expect(text).toMatch(/RUN npm ci\b/);
    expect(text).toContain(`ENTRYPOINT ["node", "${IMAGE_CLI}"]`);
    expect(text).toMatch(/^WORKDIR \/app$/m);
  });

  it('copies only paths that exist, and .dockerignore keeps out what the build makes', () => {
    for (const line of instructions.filter((l) => l.startsWith('COPY ') && !l.includes('--from='))) {
      const sources = line.split(/\s+/).slice(1, -1);
      for (const source of sources) expect(existsSync(join(ROOT, source)), source).toBe(true);
    }
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'results', '.git']) expect(ignored).toContain(entry);
  });
});
