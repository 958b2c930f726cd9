/**
 * Progress bars on stderr (cli-progress) for one run or a pool of runs: shown only when the stream
 * is a terminal and `--quiet` was not given; stdout never sees them.
 */
import { performance } from 'node:perf_hooks';
import cliProgress, { type Options as BarOptions, type Params as BarParams } from 'cli-progress';
import type { SimProgress } from '../sim/simulation.js';
import { etaS, fitWidth, formatEta, formatRate, runDetail, runFraction } from './progress-format.js';

/** One run's line, fed by its simulation. */
export interface RunProgress {
  /** Where the run stands now (as SimOptions.onProgress is told). */
  update(progress: SimProgress): void;
  /** The run ended (whether or not it succeeded): it counts as done and frees its line. */
  finish(): void;
}

/**
 * Progress of a set of runs: a pool (compare, bench, a sweep) starts each run as a worker picks it
 * up, feeds it, and finishes it; `stop` clears the lines before the command prints its results.
 * A pool of cells: `withProgress({ runs: cells, lanes: workers, quiet }, (progress) => …)`, in it
 * `progress.skip(done)` for cells already made, and per cell either `runMany([request], 1, progress)`
 * or, in a thread of one's own, `followRun(port1, progress, label)` with the worker calling
 * `postProgress(port2, threadId)` (progress-port.ts).
 */
export interface Progress {
  /** True when bars are drawn (a terminal, not --quiet). */
  readonly shown: boolean;
  /**
   * A run started. `lane` names the worker running it (e.g. its thread id): a run on a lane whose
   * previous run has not been finished yet takes its line over; without one, the first free line.
   */
  startRun(label: string, lane?: number): RunProgress;
  /** `runs` runs counted as done without being made (e.g. results already on disk). */
  skip(runs: number): void;
  /** Writes a line of text on the stream, above the bars when they are shown. */
  log(line: string): void;
  /** Clears the bars (safe to call more than once). */
  stop(): void;
}

/** The stream progress is drawn on: stderr, or a fake terminal in tests. */
export type ProgressStream = NodeJS.WritableStream & { readonly isTTY?: boolean; readonly columns?: number };

/** How to show progress. */
export interface ProgressOptions {
  /** Runs to make in all. */
  readonly runs: number;
  /** Runs made at once (worker threads; default 1). */
  readonly lanes?: number;
  /** What the runs are called on the overall line (default "runs"). */
  readonly unit?: string;
  /** True hides the bars (`--quiet`). */
  readonly quiet?: boolean;
  /** Default process.stderr. */
  readonly stream?: ProgressStream;
  /** Wall clock in milliseconds (default performance.now; tests give their own). */
  readonly nowMs?: () => number;
  /**
   * False: the bars do not clear themselves on SIGINT or SIGTERM (for a run that holds the thread
   * until it ends: a handler would hold the signal up as long, where without one it ends the
   * process at once). Default true.
   */
  readonly clearOnSignal?: boolean;
}

/** True when progress bars belong on `stream`: a terminal, and not `--quiet`. */
export function progressWanted(stream: ProgressStream, quiet: boolean | undefined): boolean {
  return quiet !== true && stream.isTTY === true;
}

/** Bars when wanted (see progressWanted), else a Progress that only passes log lines through. */
export function createProgress(options: ProgressOptions): Progress {
  const stream = options.stream ?? process.stderr;
  return progressWanted(stream, options.quiet) ? new BarProgress({ ...options, stream }) : new SilentProgress(stream);
}

/** Runs `body` with progress per `options`, and clears the bars whatever happens. */
export async function withProgress<T>(options: ProgressOptions, body: (progress: Progress) => Promise<T> | T): Promise<T> {
  const progress = createProgress(options);
  try {
    return await body(progress);
  } finally {
    progress.stop();
  }
}

/** No bars: runs are not tracked, log lines go straight to the stream. */
class SilentProgress implements Progress {
  readonly shown = false;

  constructor(private readonly stream: ProgressStream) {}

  startRun(): RunProgress {
    return { update: () => undefined, finish: () => undefined };
  }

  skip(): void {}

  log(line: string): void {
    this.stream.write(`${line}\n`);
  }

  stop(): void {}
}

/** Milliseconds between two redraws forced by updates (the bars' timer redraws too while the event loop is free). */
const REDRAW_GAP_MS = 250;

/** Width of the bar itself, in characters. */
const BAR_CHARS = 20;

/** A run as its line shows it. */
interface RunState {
  readonly label: string;
  readonly startedMs: number;
  fraction: number;
  last: SimProgress | null;
  lane: Lane | null;
  finished: boolean;
}

/** One line of a worker: the run it holds, if any. */
interface Lane {
  key: number | null;
  run: RunState | null;
}

/** What a bar's formatter is handed: the text of its line, bar drawn by cli-progress. */
interface LinePayload {
  readonly line: (bar: (fraction: number) => string) => string;
}

/** Bars drawn with cli-progress: an overall line over runs when there are several, and a line per lane. */
class BarProgress implements Progress {
  readonly shown = true;
  private readonly bars: cliProgress.MultiBar;
  private readonly lanes: Lane[] = [];
  private readonly total: number;
  private readonly unit: string;
  private readonly nowMs: () => number;
  private readonly startedMs: number;
  private finishedRuns = 0;
  private skippedRuns = 0;
  /** When updates last redrew the bars (the first update always does). */
  private lastDrawMs = -Infinity;
  private stopped = false;
  private readonly stream: ProgressStream;

  constructor(options: ProgressOptions & { readonly stream: ProgressStream }) {
    this.stream = options.stream;
    this.total = Math.max(0, options.runs);
    this.unit = options.unit ?? 'runs';
    this.nowMs = options.nowMs ?? (() => performance.now());
    this.startedMs = this.nowMs();
    this.bars = new cliProgress.MultiBar({
      stream: options.stream,
      format: formatLine,
      barsize: BAR_CHARS,
      fps: 4,
      clearOnComplete: true,
      // Every line is rewritten at each redraw: a log line above the bars shifts them all down.
      forceRedraw: true,
      hideCursor: null,
      linewrap: true,
      // Not cli-progress's own signal handler: one left listening when dlsim raises the signal again to
      // end the process would swallow it (see onSignal).
      gracefulExit: false,
    });
    if (this.total > 1) this.bars.create(1, 0, { line: (bar) => this.overallLine(bar) } satisfies LinePayload);
    const lanes = Math.max(1, Math.min(options.lanes ?? 1, this.total));
    for (let i = 0; i < lanes; i++) this.addLane();
    if (options.clearOnSignal !== false) {
      process.prependOnceListener('SIGINT', this.onSignal);
      process.prependOnceListener('SIGTERM', this.onSignal);
    }
  }

  /**
   * Interrupted: clears the bars before any other handler runs, and takes itself off first, so
   * that a handler raising the signal again to end the process (removeTemporariesOnSignal) is not
   * caught by it; with no other handler, raises it again itself.
   */
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    this.stop();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  startRun(label: string, laneKey?: number): RunProgress {
    const run: RunState = { label, startedMs: this.nowMs(), fraction: 0, last: null, lane: null, finished: false };
    const lane = this.laneFor(laneKey);
    if (lane.run !== null) lane.run.lane = null;
    lane.run = run;
    lane.key = laneKey ?? null;
    run.lane = lane;
    this.draw(false);
    return {
      update: (progress) => {
        if (run.finished) return;
        run.last = progress;
        run.fraction = runFraction(progress);
        this.draw(false);
      },
      finish: () => {
        if (run.finished) return;
        run.finished = true;
        this.finishedRuns++;
        if (run.lane !== null) {
          run.lane.run = null;
          run.lane = null;
        }
        this.draw(false);
      },
    };
  }

  skip(runs: number): void {
    this.skippedRuns += Math.max(0, runs);
    this.draw(false);
  }

  log(line: string): void {
    if (this.stopped) {
      this.stream.write(`${line}\n`);
      return;
    }
    this.bars.log(`${line}\n`);
    this.draw(true);
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    this.bars.stop();
  }

  /** The lane of `key` if one has it, else the first free lane, else a new one. */
  private laneFor(key: number | undefined): Lane {
    if (key !== undefined) {
      const held = this.lanes.find((lane) => lane.key === key);
      if (held !== undefined) return held;
    }
    return this.lanes.find((lane) => lane.run === null) ?? this.addLane();
  }

  private addLane(): Lane {
    const lane: Lane = { key: null, run: null };
    this.bars.create(1, 0, { line: (bar) => this.laneLine(lane, bar) } satisfies LinePayload);
    this.lanes.push(lane);
    return lane;
  }

  /** Redraws now when `force` or when the last redraw is REDRAW_GAP_MS old (updates come while the event loop may be blocked by a run). */
  private draw(force: boolean): void {
    if (this.stopped) return;
    const now = this.nowMs();
    if (!force && now - this.lastDrawMs < REDRAW_GAP_MS) return;
    this.lastDrawMs = now;
    this.bars.update();
  }

  private overallLine(bar: (fraction: number) => string): string {
    const made = this.finishedRuns + this.lanes.reduce((sum, lane) => sum + (lane.run?.fraction ?? 0), 0);
    const left = Math.max(0, this.total - this.skippedRuns - made);
    const elapsedS = (this.nowMs() - this.startedMs) / 1000;
    const eta = made > 0 ? (elapsedS * left) / made : null;
    const done = this.finishedRuns + this.skippedRuns;
    const fraction = this.total > 0 ? (this.skippedRuns + made) / this.total : 1;
    return `${this.unit.padEnd(LABEL_CHARS)} [${bar(fraction)}] ${done}/${this.total} ${this.unit} | elapsed ${formatEta(elapsedS)} | ETA ${formatEta(eta)}`;
  }

  private laneLine(lane: Lane, bar: (fraction: number) => string): string {
    const run = lane.run;
    if (run === null) return `${'idle'.padEnd(LABEL_CHARS)} [${bar(0)}]`;
    const label = run.label.length > LABEL_CHARS ? run.label.slice(0, LABEL_CHARS) : run.label.padEnd(LABEL_CHARS);
    if (run.last === null) return `${label} [${bar(0)}] running`;
    const elapsedS = (this.nowMs() - run.startedMs) / 1000;
    const rate = elapsedS > 0 ? run.last.events / elapsedS : 0;
    const percent = `${Math.floor(run.fraction * 100)}%`.padStart(4);
    return `${label} [${bar(run.fraction)}] ${percent} | ${runDetail(run.last)} | ${formatRate(rate)} | ETA ${formatEta(etaS(run.fraction, elapsedS))}`;
  }
}

/** Characters of a line's label (a run's name; longer ones are cut). */
const LABEL_CHARS = 22;

/** cli-progress formatter: the payload's line, with cli-progress's bar, cut to the terminal's width. */
function formatLine(options: BarOptions, params: BarParams, payload: LinePayload): string {
  const line = payload.line((fraction) => cliProgress.Format.BarFormat(Math.min(1, Math.max(0, fraction)), options));
  const width = (params as BarParams & { maxWidth?: number }).maxWidth;
  return fitWidth(line, width === undefined ? 0 : width - 1);
}
