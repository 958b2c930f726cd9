import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WAIT_REASONS, type WaitReason } from '../../src/policies/wait-reason.js';
import { WaitLedger } from '../../src/sim/wait-ledger.js';

const job = (arrivalIndex: number) => ({ arrivalIndex });
/** Seconds by reason name, zero reasons left out. */
function secondsByReason(ledger: WaitLedger, index: number): Partial<Record<WaitReason, number>> {
  const out: Partial<Record<WaitReason, number>> = {};
  ledger.secondsOf(job(index)).forEach((seconds, r) => {
    if (seconds !== 0) out[WAIT_REASONS[r]!] = seconds;
  });
  return out;
}

describe('the wait ledger', () => {
  it('gives a job the reasons of the jobs not named, as they change while it waits', () => {
    const ledger = new WaitLedger(2, 0);
    ledger.joined(job(0), 0);
    ledger.beginPass();
    ledger.others(10, 'head-of-line', job(1));
    ledger.endPass(10);
    ledger.left(job(0), 30);
    expect(secondsByReason(ledger, 0)).toEqual({ 'not-chosen': 10, 'head-of-line': 20 });
    expect(ledger.blockerOfJob(job(0))).toBe(1);
    expect(ledger.totalsByReason()['head-of-line']).toBe(20);
  });

  it('takes a named job back to the others\' reason in the first pass that names the others but not it', () => {
    const ledger = new WaitLedger(1, 0);
    ledger.joined(job(0), 0);
    ledger.beginPass();
    ledger.own(job(0), 5, 'no-gpus');
    ledger.endPass(5);
    // A pass that names nothing keeps it.
    ledger.beginPass();
    ledger.endPass(8);
    ledger.beginPass();
    ledger.others(15, 'head-of-line');
    ledger.endPass(15);
    ledger.left(job(0), 20);
    expect(secondsByReason(ledger, 0)).toEqual({ 'not-chosen': 5, 'no-gpus': 10, 'head-of-line': 5 });
  });

  it('keeps a preempted job preempted until a policy names it, whatever the others and its group wait for', () => {
    const ledger = new WaitLedger(2, 0);
    ledger.joined(job(0), 0, job(1));
    ledger.beginPass();
    ledger.others(5, 'head-of-line');
    ledger.joinGroup(job(0), 5, 2);
    ledger.endPass(5);
    ledger.beginPass();
    ledger.own(job(0), 12, 'cpu-memory');
    ledger.endPass(12);
    ledger.left(job(0), 20);
    expect(secondsByReason(ledger, 0)).toEqual({ preempted: 12, 'cpu-memory': 8 });
  });

  it('moves a whole group to a new reason at once', () => {
    const ledger = new WaitLedger(3, 0);
    for (const i of [0, 1]) {
      ledger.joined(job(i), 0);
      ledger.joinGroup(job(i), 0, 7);
    }
    ledger.group(7, 4, 'gang');
    ledger.left(job(0), 6);
    ledger.group(7, 8, 'fragmented');
    ledger.left(job(1), 10);
    expect(secondsByReason(ledger, 0)).toEqual({ 'not-chosen': 4, gang: 2 });
    expect(secondsByReason(ledger, 1)).toEqual({ 'not-chosen': 4, gang: 4, fragmented: 2 });
  });

  it('refuses a reason for a job that is not queued', () => {
    const ledger = new WaitLedger(1, 0);
    expect(() => ledger.own(job(0), 0, 'priority')).toThrow(/not queued/);
  });

  it('attributes every queued second to exactly one reason, whatever the policy says when', () => {
    const reasons = WAIT_REASONS.filter((r) => r !== 'preempted');
    const op = fc.oneof(
      fc.record({ kind: fc.constant('toggle' as const), job: fc.nat(3) }),
      fc.record({ kind: fc.constant('own' as const), job: fc.nat(3), reason: fc.constantFrom(...reasons) }),
      fc.record({ kind: fc.constant('others' as const), reason: fc.constantFrom(...reasons) }),
      fc.record({ kind: fc.constant('group' as const), group: fc.nat(2), reason: fc.constantFrom(...reasons) }),
      fc.record({ kind: fc.constant('join' as const), job: fc.nat(3), group: fc.nat(2) }),
      fc.record({ kind: fc.constant('pass' as const) }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(op, fc.integer({ min: 0, max: 5 })), { maxLength: 60 }), (steps) => {
        const ledger = new WaitLedger(4, 0);
        const queuedSince: (number | null)[] = [null, null, null, null];
        const queuedS = [0, 0, 0, 0];
        let nowS = 0;
        ledger.beginPass();
        for (const [step, dtS] of steps) {
          nowS += dtS;
          if (step.kind === 'toggle') {
            const since = queuedSince[step.job]!;
            if (since === null) {
              ledger.joined(job(step.job), nowS, step.job === 3 ? null : undefined);
              queuedSince[step.job] = nowS;
            } else {
              ledger.left(job(step.job), nowS);
              queuedS[step.job]! += nowS - since;
              queuedSince[step.job] = null;
            }
          } else if (step.kind === 'own') {
            if (queuedSince[step.job] !== null) ledger.own(job(step.job), nowS, step.reason);
          } else if (step.kind === 'others') ledger.others(nowS, step.reason);
          else if (step.kind === 'group') ledger.group(step.group, nowS, step.reason);
          else if (step.kind === 'join') {
            if (queuedSince[step.job] !== null) ledger.joinGroup(job(step.job), nowS, step.group);
          } else {
            ledger.endPass(nowS);
            ledger.beginPass();
          }
        }
        for (let i = 0; i < 4; i++) {
          if (queuedSince[i] !== null) {
            ledger.left(job(i), nowS);
            queuedS[i]! += nowS - queuedSince[i]!;
          }
          const sum = ledger.secondsOf(job(i)).reduce((a, b) => a + b, 0);
          expect(sum).toBeCloseTo(queuedS[i]!, 9);
          for (const seconds of ledger.secondsOf(job(i))) expect(seconds).toBeGreaterThanOrEqual(0);
        }
      }),
    );
  });
});
