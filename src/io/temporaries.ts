/** Temporary files being written, removed when the process is interrupted (SIGINT, SIGTERM). */
import { rmSync } from 'node:fs';

const pending = new Set<string>();
let installed = false;

/** Records a temporary file that is being written; release it once renamed or removed. */
export function trackTemporary(path: string): void {
  pending.add(path);
}

/** Forgets a temporary file (it was renamed into place or removed). */
export function releaseTemporary(path: string): void {
  pending.delete(path);
}

/**
 * Makes SIGINT and SIGTERM remove every tracked temporary file, then end the process by the same
 * signal (its default action: a read blocked on a pipe cannot hold the exit up), so an interrupted
 * command leaves no temporary file behind.
 */
export function removeTemporariesOnSignal(): void {
  if (installed) return;
  installed = true;
  const onSignal = (signal: NodeJS.Signals): void => {
    for (const path of pending) rmSync(path, { force: true });
    process.kill(process.pid, signal);
  };
  // `once`: the handler is gone when the signal is raised again, so the default action ends the process.
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
