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
    // Gone only now: the same signal sent twice (by a terminal to every process of its group, and
    // passed on by the `dlsim` program to the child running the command) cannot end the process
    // before the files are removed. Then the default action ends it.
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    process.kill(process.pid, signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
