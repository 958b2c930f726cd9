/** Temporary files being written, removed when the process is interrupted (SIGINT, SIGTERM). */
import { rmSync } from 'node:fs';

const pending = new Set<string>();
/** True once removeTemporariesOnSignal was called: the handlers are on while a file is pending. */
let armed = false;
let listening = false;

/** Records a temporary file that is being written; release it once renamed or removed. */
export function trackTemporary(path: string): void {
  pending.add(path);
  if (armed) listen(true);
}

/** Forgets a temporary file (it was renamed into place or removed). */
export function releaseTemporary(path: string): void {
  pending.delete(path);
  if (pending.size === 0) listen(false);
}

/**
 * Makes SIGINT and SIGTERM remove every tracked temporary file, then end the process by the same
 * signal (its default action: a read blocked on a pipe cannot hold the exit up), so an interrupted
 * command leaves no temporary file behind. The handlers are on only while some file is pending:
 * a handler runs only when the process next waits, so one on during a long computation (a
 * simulation) would hold the signal up until it ended; with none, the signal ends the process at once.
 */
export function removeTemporariesOnSignal(): void {
  armed = true;
  if (pending.size > 0) listen(true);
}

function onSignal(signal: NodeJS.Signals): void {
  for (const path of pending) rmSync(path, { force: true });
  // Off only now: the same signal sent twice (by a terminal to every process of its group, and
  // passed on by the `dlsim` program to the child running the command) cannot end the process
  // before the files are removed. Then the default action ends it.
  listen(false);
  process.kill(process.pid, signal);
}

/** Puts the handlers on or takes them off. */
function listen(on: boolean): void {
  if (on === listening) return;
  listening = on;
  if (on) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  } else {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}
