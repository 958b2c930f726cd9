import { z } from 'zod';
import { parseDurationS } from '../io/duration.js';
import { says } from '../io/yaml-errors.js';
import { MAX_TIME_S } from '../model/limits.js';

/** A policy option that is a positive duration: seconds, or a string with a unit (30s, 10m, 2h, 1d). */
export const durationOption = z
  .custom<number | string>((value) => typeof value === 'number' || typeof value === 'string', says('expected a positive duration like 30s, 10m, 2h'))
  .transform((value, ctx) => {
    const durationS = parseDurationS(value);
    if (durationS === null || durationS === 0 || durationS > MAX_TIME_S) {
      ctx.addIssue({ code: 'custom', message: 'expected a positive duration like 30s, 10m, 2h, at most 100 years', input: value });
      return z.NEVER;
    }
    return durationS;
  });

/** A policy option that is a share in (0, 1]. */
export const shareOption = z.number(says('expected a number in (0, 1]')).gt(0, says('expected a number in (0, 1]')).max(1, says('expected a number in (0, 1]'));

/** A policy option that is a positive number. */
export const positiveOption = z.number(says('expected a positive number')).positive(says('expected a positive number'));
