import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/engine/engine.js';
import { InvariantError } from '../../src/errors.js';

interface TestEvent {
  name: string;
  epoch?: number;
}

/** An engine whose handlers log what happened, and may schedule follow-ups. */
function loggingEngine(options: { currentEpoch?: () => number; onDispatch?: (e: TestEvent, engine: Engine<TestEvent>) => void } = {}) {
  const log: string[] = [];
  const engine: Engine<TestEvent> = new Engine<TestEvent>({
    isStale: (e) => e.epoch !== undefined && options.currentEpoch !== undefined && e.epoch !== options.currentEpoch(),
    dispatch: (e) => {
      log.push(`${engine.nowS}:${e.name}`);
      options.onDispatch?.(e, engine);
    },
    endOfInstant: () => log.push(`${engine.nowS}:end-of-instant`),
  });
  return { engine, log };
}

describe('Engine', () => {
  it('runs events in time order and same-time events in scheduling order', () => {
    const { engine, log } = loggingEngine();
    engine.scheduleAt(5, { name: 'c' });
    engine.scheduleAt(1, { name: 'a' });
    engine.scheduleAt(5, { name: 'd' });
    engine.scheduleAt(1, { name: 'b' });
    engine.scheduleAt(5, { name: 'e' });
    expect(engine.run()).toBe('drained');
    expect(log).toEqual(['1:a', '1:b', '1:end-of-instant', '5:c', '5:d', '5:e', '5:end-of-instant']);
    expect(engine.dispatched).toBe(5);
  });

  it('runs events scheduled during an instant for that same instant before ending it', () => {
    const { engine, log } = loggingEngine({
      onDispatch: (e, eng) => {
        if (e.name === 'a') eng.scheduleIn(0, { name: 'a-follow-up' });
      },
    });
    engine.scheduleAt(2, { name: 'a' });
    engine.scheduleAt(3, { name: 'b' });
    engine.run();
    expect(log).toEqual(['2:a', '2:a-follow-up', '2:end-of-instant', '3:b', '3:end-of-instant']);
  });

  it('drops stale events lazily by epoch without dispatching them', () => {
    let epoch = 1;
    const { engine, log } = loggingEngine({
      currentEpoch: () => epoch,
      onDispatch: (e) => {
        if (e.name === 'bump') epoch = 2;
      },
    });
    engine.scheduleAt(10, { name: 'finish-old', epoch: 1 });
    engine.scheduleAt(4, { name: 'bump' });
    engine.scheduleAt(12, { name: 'finish-new', epoch: 2 });
    engine.run();
    expect(log.filter((l) => !l.endsWith('end-of-instant'))).toEqual(['4:bump', '12:finish-new']);
    expect(engine.dropped).toBe(1);
    expect(engine.dispatched).toBe(2);
  });

  it('run(until) stops before later events, leaves them queued and resumes', () => {
    const { engine, log } = loggingEngine();
    engine.scheduleAt(1, { name: 'a' });
    engine.scheduleAt(10, { name: 'b' });
    expect(engine.run(5)).toBe('horizon');
    expect(engine.nowS).toBe(5);
    expect(engine.pending).toBe(1);
    expect(log).toEqual(['1:a', '1:end-of-instant']);
    expect(engine.run(10)).toBe('drained');
    expect(log.at(-2)).toBe('10:b');
  });

  it('refuses to schedule into the past', () => {
    const { engine } = loggingEngine({
      onDispatch: (_e, eng) => eng.scheduleAt(1, { name: 'past' }),
    });
    engine.scheduleAt(3, { name: 'a' });
    expect(() => engine.run()).toThrow(InvariantError);
  });
});
