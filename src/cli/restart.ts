import { spawn, type ChildProcess } from 'node:child_process';

/** Set in the environment of the child runInChild starts (and taken out of it there): its channel is runInChild's. */
const CHILD_MARK = 'DLSIM_RUN_IN_CHILD';

/** Signals the program passes on to the child running the command (a terminal's, a supervisor's). */
export const PASSED_ON: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs this program's command line again in a child node started with `nodeOptions`, as if this
 * process ran it: the child gets this process's standard streams, the signals above are passed on
 * to it, and this process ends as it does (its exit code, or the signal that ended it). The child
 * is told through a channel when this process ends first (killed outright): it then ends too, as
 * a SIGTERM would end it (see endWithParent).
 *
 * Hand-written: the packages that run a child in the foreground give it no such channel, so a
 * child would run on after its parent was killed.
 */
export function runInChild(nodeOptions: readonly string[]): void {
  const child = startTiedChild([...nodeOptions, ...process.argv.slice(1)], 'inherit');
  child.on('error', (error) => {
    process.stderr.write(`dlsim: cannot start node again (${error.message})\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    if (signal === null) process.exit(code ?? 1);
    endBySignal(signal);
  });
}

/**
 * Starts `node args` as a child tied to this process: the signals above are passed on to it while
 * it runs, and it ends when this process ends first (see endWithParent). Its standard streams are
 * this process's ('inherit') or pipes ('pipe').
 */
export function startTiedChild(args: readonly string[], streams: 'inherit' | 'pipe'): ChildProcess {
  const child = spawn(process.execPath, args, {
    stdio: [streams, streams, streams, 'ipc'],
    env: { ...process.env, [CHILD_MARK]: '1' },
  });
  const passOn = (signal: NodeJS.Signals): void => {
    child.kill(signal);
  };
  for (const signal of PASSED_ON) process.on(signal, passOn);
  const stopPassing = (): void => {
    for (const passed of PASSED_ON) process.removeListener(passed, passOn);
  };
  child.on('exit', stopPassing);
  child.on('error', stopPassing);
  return child;
}

/** How a tied child run by runTiedChild ended, and what it wrote. */
export interface TiedRun {
  /** Its exit code (null when a signal ended it). */
  readonly code: number | null;
  /** The signal that ended it, or null. */
  readonly signal: NodeJS.Signals | null;
  /** True when it ran past the time it was given (it was then killed by SIGKILL). */
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node args` as a child tied to this process (see startTiedChild), its output read to the
 * end; killed by SIGKILL after `timeoutMs` when given. When it ends by a signal passed on to it
 * (this process was interrupted, or it alone), `interrupted` is that signal: the caller cleans up,
 * then ends by it (see endBySignal).
 */
export async function runTiedChild(args: readonly string[], timeoutMs?: number): Promise<TiedRun & { readonly interrupted: NodeJS.Signals | null }> {
  const child = startTiedChild(args, 'pipe');
  child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let timedOut = false;
  const timer = timeoutMs === undefined ? null : setTimeout(() => ((timedOut = true), child.kill('SIGKILL')), timeoutMs);
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done, failed) => {
    child.on('error', failed);
    // 'close': the streams are read to their end.
    child.on('close', (exitCode, exitSignal) => done({ code: exitCode, signal: exitSignal }));
  }).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
  const interrupted = !timedOut && signal !== null && PASSED_ON.includes(signal) ? signal : null;
  return { code, signal, timedOut, stdout, stderr, interrupted };
}

/** Ends this process by `signal` (its default action, with no handler of this module on), staying alive until it arrives. */
export function endBySignal(signal: NodeJS.Signals): void {
  setTimeout(() => process.exit(1), 2000);
  process.kill(process.pid, signal);
}

/** endBySignal for an async caller: the promise it returns never settles, so nothing after it runs. */
export function endingBySignal(signal: NodeJS.Signals): Promise<never> {
  endBySignal(signal);
  return new Promise(() => undefined);
}

/**
 * In a child started by runInChild: when the parent ends first (its channel closes), ends this
 * process by SIGTERM, whose handlers remove the temporary files being written. A channel that
 * holds nothing open: the child ends when its work does. No effect in another process (one forked
 * with a channel of its own keeps it as it is).
 */
export function endWithParent(): void {
  const channel = process.channel;
  const mine = process.env[CHILD_MARK] === '1';
  // Not passed on to the processes this one starts.
  delete process.env[CHILD_MARK];
  if (channel === undefined || !mine) return;
  channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
