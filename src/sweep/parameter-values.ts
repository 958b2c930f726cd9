/** A swept parameter's values as a sweep file gives them: a list, `{values: [...]}`, or a number range `{from, to, step}`. */
import { z } from 'zod';
import { says, yamlErrorMap } from '../io/yaml-errors.js';

/** At most this many cells in a sweep (and values in one parameter). */
export const MAX_GRID_CELLS = 100_000;

/** One value of a swept parameter: any YAML value but null (it is given to `--set` as YAML). */
export type ParameterValue = string | number | boolean | readonly unknown[] | { readonly [key: string]: unknown };

/** The values of one parameter, in the order the sweep runs them. */
export type ParameterValues = readonly ParameterValue[];

/** The values of a range from `fromValue` to `toValue` (both included when reached) by `step`, rounded to 12 significant digits. */
export function rangeValues(fromValue: number, toValue: number, step: number): number[] {
  const count = rangeCount(fromValue, toValue, step);
  return Array.from({ length: count }, (_, i) => Number((fromValue + i * step).toPrecision(12)));
}

/** How many values a range has (the end is included when a step lands on it, to 1e-9 of a step). */
export function rangeCount(fromValue: number, toValue: number, step: number): number {
  return Math.floor((toValue - fromValue) / step + 1e-9) + 1;
}

const valueSchema = z.custom<ParameterValue>((value) => value !== null && value !== undefined, says('expected a value (not null)'));
const valueListSchema = z.array(valueSchema, says('expected a list of values')).min(1, says('expected at least one value'));
const finite = z.number(says('expected a number')).refine(Number.isFinite, says('expected a finite number'));

const rangeSchema = z
  .strictObject({ from: finite, to: finite, step: finite.refine((step) => step > 0, says('expected a positive number')).default(1) })
  .superRefine((range, ctx) => {
    if (range.to < range.from) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `to (${range.to}) is below from (${range.from})` });
    } else if (rangeCount(range.from, range.to, range.step) > MAX_GRID_CELLS) {
      ctx.addIssue({ code: 'custom', path: ['step'], message: `the range has ${rangeCount(range.from, range.to, range.step)} values: expected at most ${MAX_GRID_CELLS}` });
    }
  })
  .transform((range) => rangeValues(range.from, range.to, range.step));

/** Values given twice would make identical cells: the first repeated one is an issue at its index. */
function checkDistinct(values: readonly ParameterValue[], ctx: z.RefinementCtx, prefix: readonly (string | number)[]): void {
  const seen = new Map<string, number>();
  values.forEach((value, i) => {
    const key = JSON.stringify(value);
    const first = seen.get(key);
    if (first !== undefined) ctx.addIssue({ code: 'custom', path: [...prefix, i], message: `the value ${key} is given twice (also [${first}])` });
    else seen.set(key, i);
  });
}

const EXPECTED = 'expected a list of values, {values: [...]} or a number range {from, to, step}';
const listSchema = valueListSchema.superRefine((values, ctx) => checkDistinct(values, ctx, []));
const valuesSchema = z
  .strictObject({ values: valueListSchema })
  .superRefine((spec, ctx) => checkDistinct(spec.values, ctx, ['values']))
  .transform((spec) => spec.values);

/** The form a value is written in, by its shape: a list, a mapping with values, or another mapping (a range). */
function formOf(value: unknown): z.ZodType<ParameterValues> | null {
  if (Array.isArray(value)) return listSchema;
  if (typeof value !== 'object' || value === null) return null;
  return 'values' in value ? valuesSchema : rangeSchema;
}

/**
 * A parameter's values: a non-empty list of distinct values, `{values: [...]}`, or `{from, to, step}`
 * (numbers, the end included). The form is chosen by shape, so a problem is reported inside it.
 */
export const parameterValuesSchema = z.unknown().transform((value, ctx): ParameterValues => {
  const form = formOf(value);
  if (form === null) {
    ctx.addIssue({ code: 'custom', message: value === undefined ? 'required' : EXPECTED, input: value });
    return z.NEVER;
  }
  const parsed = form.safeParse(value, { error: yamlErrorMap });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') ctx.addIssue({ code: 'unrecognized_keys', keys: issue.keys, path: issue.path, message: issue.message, input: value as Record<string, unknown> });
  else ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input: value });
  return z.NEVER;
});
