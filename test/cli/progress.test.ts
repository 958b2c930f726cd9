import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { createProgress, progressWanted, withProgress, type Progress } from '../../src/cli/progress.js';
import type { SimProgress } from '../../src/sim/simulation.js';

/** A stream that keeps what is written, a terminal of 120 columns or not. */
class FakeStream extends Writable {
  readonly chunks: string[] = [];
  constructor(
    readonly isTTY: boolean,
    readonly columns = 120,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(String(chunk));
    done();
  }
  get text(): string {
    return this.chunks.join('');
  }
  /** What was written, escape sequences taken out, line by line. */
  get lines(): string[] {
    return stripVTControlCharacters(this.text).split(/[\r\n]+/).map((line) => line.trimEnd()).filter((line) => line !== '');
  }
  /** The terminal's lines as they stand now (the cursor moves and erasures cli-progress writes, played back). */
  get screen(): string[] {
    const rows: string[] = [''];
    let row = 0;
    let col = 0;
    const put = (ch: string): void => {
      const line = rows[row]!.padEnd(col);
      rows[row] = line.slice(0, col) + ch + line.slice(col + 1);
      col++;
    };
    for (const token of this.text.match(/\x1b\[\??\d*[A-Za-z]|[\s\S]/g) ?? []) {
      const esc = /^\x1b\[(\??)(\d*)([A-Za-z])$/.exec(token);
      if (esc === null) {
        if (token === '\n') {
          row++;
          col = 0;
          rows[row] ??= '';
        } else if (token === '\r') col = 0;
        else put(token);
        continue;
      }
      const n = esc[2] === '' ? 1 : Number(esc[2]);
      if (esc[1] === '?') continue;
      if (esc[3] === 'A') row = Math.max(0, row - n);
      else if (esc[3] === 'B') row += n;
      else if (esc[3] === 'G') col = n - 1;
      else if (esc[3] === 'K') rows[row] = esc[2] === '2' ? '' : rows[row]!.slice(0, col);
      else if (esc[3] === 'J') rows.splice(row + 1), (rows[row] = rows[row]!.slice(0, col));
      rows[row] ??= '';
    }
    return rows.map((line) => line.trimEnd()).filter((line) => line !== '');
  }
}

/** A clock the test moves by hand, in milliseconds. */
function fakeClock(): { nowMs: () => number; advance: (ms: number) => void } {
  let now = 1000;
  return { nowMs: () => now, advance: (ms) => void (now += ms) };
}

const at = (over: Partial<SimProgress>): SimProgress => ({ simS: 0, startS: 0, horizonS: Infinity, jobsDone: 0, jobsTotal: 100, events: 0, done: false, ...over });

const open: Progress[] = [];
function make(options: Parameters<typeof createProgress>[0]): Progress {
  const progress = createProgress(options);
  open.push(progress);
  return progress;
}
afterEach(() => {
  for (const progress of open.splice(0)) progress.stop();
});

describe('progressWanted', () => {
  it('wants bars on a terminal only, and never with --quiet', () => {
    expect(progressWanted(new FakeStream(true), undefined)).toBe(true);
    expect(progressWanted(new FakeStream(true), true)).toBe(false);
    expect(progressWanted(new FakeStream(false), undefined)).toBe(false);
    expect(progressWanted(new FakeStream(false), false)).toBe(false);
  });
});

describe('progress not shown', () => {
  it('writes nothing for runs on a stream that is not a terminal, and passes log lines through', () => {
    const stream = new FakeStream(false);
    const progress = make({ runs: 2, lanes: 2, stream });
    expect(progress.shown).toBe(false);
    const run = progress.startRun('fifo s1');
    run.update(at({ jobsDone: 50, events: 1000 }));
    run.finish();
    progress.log('running sim-default…');
    progress.stop();
    expect(stream.text).toBe('running sim-default…\n');
  });

  it('writes nothing for runs on a terminal with --quiet', () => {
    const stream = new FakeStream(true);
    const progress = make({ runs: 1, stream, quiet: true });
    const run = progress.startRun('fifo s1');
    run.update(at({ jobsDone: 50, events: 1000 }));
    run.finish();
    progress.stop();
    expect(stream.text).toBe('');
  });
});

describe('progress bars on a terminal', () => {
  it('draws one run with its share done, simulated time, jobs, events/s and ETA, then clears it', () => {
    const stream = new FakeStream(true);
    const clock = fakeClock();
    const progress = make({ runs: 1, stream, nowMs: clock.nowMs });
    expect(progress.shown).toBe(true);
    const run = progress.startRun('fifo s1');
    clock.advance(2000);
    run.update(at({ simS: 7200, horizonS: Infinity, jobsDone: 40, jobsTotal: 100, events: 30_000 }));
    const last = stream.screen.at(-1)!;
    expect(last).toMatch(/^fifo s1 +\[=+-+\] +40% \| sim 2\.0 h \| jobs 40\/100 \| 15\.0k ev\/s \| ETA 3s$/);
    // One run: no line over runs.
    expect(stream.lines.some((line) => line.includes('runs'))).toBe(false);
    progress.stop();
    expect(stream.screen).toEqual([]);
  });

  it('redraws for updates at most every 250 ms of its clock', () => {
    const stream = new FakeStream(true);
    const clock = fakeClock();
    const progress = make({ runs: 1, stream, nowMs: clock.nowMs });
    const run = progress.startRun('fifo s1');
    clock.advance(300);
    run.update(at({ jobsDone: 10, events: 100 }));
    const drawn = stream.chunks.length;
    clock.advance(100);
    run.update(at({ jobsDone: 20, events: 200 }));
    expect(stream.chunks.length).toBe(drawn);
    clock.advance(200);
    run.update(at({ jobsDone: 30, events: 300 }));
    expect(stream.screen).toEqual([expect.stringMatching(/30% \| sim 0 s \| jobs 30\/100/)]);
  });

  it('shows runs done of all over one line per lane, lanes freed as runs finish', () => {
    const stream = new FakeStream(true);
    const clock = fakeClock();
    const progress = make({ runs: 4, lanes: 2, stream, nowMs: clock.nowMs });
    const a = progress.startRun('fifo s1', 7);
    clock.advance(300);
    const b = progress.startRun('drf s1', 8);
    clock.advance(300);
    a.update(at({ jobsDone: 50, events: 10 }));
    // Lines: the one over runs, then the lanes in order.
    const screen = (): string[] => stream.screen;
    expect(screen()[0]).toMatch(/^runs +\[[=-]+\] 0\/4 runs \| elapsed 1s \| ETA /);
    expect(screen()[1]).toMatch(/^fifo s1 .* 50% \| sim 0 s \| jobs 50\/100/);
    expect(screen()[2]).toMatch(/^drf s1 .*running$/);
    clock.advance(300);
    a.finish();
    b.finish();
    clock.advance(300);
    progress.skip(1);
    expect(screen()[0]).toMatch(/^runs +\[[=-]+\] 3\/4 runs/);
    expect(screen()[1]).toMatch(/^idle/);
    expect(screen()[2]).toMatch(/^idle/);
  });

  it('lets a run on a lane whose last run is not finished yet take that line over', () => {
    const stream = new FakeStream(true);
    const clock = fakeClock();
    const progress = make({ runs: 3, lanes: 2, stream, nowMs: clock.nowMs });
    const first = progress.startRun('fifo s1', 7);
    progress.startRun('fifo s2', 8);
    clock.advance(300);
    progress.startRun('fifo s3', 7);
    clock.advance(300);
    first.finish();
    clock.advance(300);
    progress.skip(0);
    const screen = stream.screen;
    expect(screen[0]).toMatch(/1\/3 runs/);
    expect(screen[1]).toMatch(/^fifo s3 /);
    expect(screen[2]).toMatch(/^fifo s2 /);
  });

  it('writes log lines above the bars', () => {
    const stream = new FakeStream(true);
    const progress = make({ runs: 2, lanes: 1, stream, unit: 'cases', nowMs: fakeClock().nowMs });
    progress.startRun('sim-default');
    progress.log('running sim-default…');
    expect(stream.screen).toEqual(['running sim-default…', expect.stringMatching(/^cases +\[-+\] 0\/2 cases/), expect.stringMatching(/^sim-default +\[-+\] running$/)]);
  });

  it('cuts lines to the terminal width', () => {
    const stream = new FakeStream(true, 40);
    const progress = make({ runs: 1, stream, nowMs: fakeClock().nowMs });
    progress.startRun('a-run-with-a-rather-long-name-indeed').update(at({ jobsDone: 1, events: 5 }));
    expect(stream.lines.length).toBeGreaterThan(0);
    for (const line of stream.lines) expect(line.length).toBeLessThanOrEqual(39);
  });
});

describe('interrupted', () => {
  it('clears the bars on SIGINT before other handlers, and leaves no handler of its own behind', () => {
    const stream = new FakeStream(true);
    const order: string[] = [];
    const other = (): void => void order.push(`other saw ${stream.screen.length} lines`);
    process.on('SIGINT', other);
    try {
      const before = process.listenerCount('SIGINT');
      const terms = process.listenerCount('SIGTERM');
      const progress = make({ runs: 2, lanes: 2, stream, nowMs: fakeClock().nowMs });
      progress.startRun('fifo s1');
      expect(stream.screen.length).toBe(3);
      expect(process.listenerCount('SIGINT')).toBe(before + 1);
      process.emit('SIGINT', 'SIGINT');
      expect(order).toEqual(['other saw 0 lines']);
      expect(process.listenerCount('SIGINT')).toBe(before);
      expect(process.listenerCount('SIGTERM')).toBe(terms);
    } finally {
      process.removeListener('SIGINT', other);
    }
  });

  it('takes its signal handlers off when stopped', () => {
    const [ints, terms] = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const progress = make({ runs: 1, stream: new FakeStream(true) });
    progress.stop();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual([ints, terms]);
  });
});

describe('withProgress', () => {
  it('clears the bars when its body throws', async () => {
    const stream = new FakeStream(true);
    await expect(
      withProgress({ runs: 1, stream }, (progress) => {
        progress.startRun('fifo s1');
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(stream.text).not.toBe('');
    expect(stream.screen).toEqual([]);
  });
});
