import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { knownMetricNames, OPEN_METRIC_PREFIXES } from '../../src/report/compare.js';
import { closeMatches, defaultRows, METRIC_ALIASES, parseMetricsOption, rowOf } from '../../src/report/table-rows.js';

const known = knownMetricNames();
const parse = (value: string) => parseMetricsOption(value, known, OPEN_METRIC_PREFIXES).map((row) => row.metric);

describe('--metrics', () => {
  it('knows every summary metric, spot classes and fairness included, and not perUser or provenance', () => {
    expect(known).toContain('jctS.mean');
    expect(known).toContain('fairness.jainSlowdown');
    expect(known).toContain('priorityClasses.spot.preemptions');
    expect(known.some((name) => name.startsWith('perUser') || name.startsWith('provenance'))).toBe(false);
    for (const alias of Object.values(METRIC_ALIASES)) expect(known.some((name) => name === alias || name.startsWith(`${alias}.`)), alias).toBe(true);
  });

  it('takes dotted names, aliases and groups in the order given, each once', () => {
    expect(parse('failed, faults,lostGpuHours,downtimeGpuHours,waiting')).toEqual(['jobs.failed', 'faults.total', 'lostGpuHours', 'downtimeGpuHours', 'waitS.mean']);
    expect(parse('jctS,jct')).toEqual(['jctS.mean', 'jctS.p50', 'jctS.p90', 'jctS.p99']);
    expect(parse('reasons')).toContain('waitByReason.head-of-line.share');
    expect(parse('reasons')).toHaveLength(16);
    expect(parse('faults.byType.xid-79,cpuStarvedWaitS.share')).toEqual(['faults.byType.xid-79', 'cpuStarvedWaitS.share']);
  });

  it('labels and formats a row as the default table does, or by its name', () => {
    expect(rowOf('jctS.mean')).toEqual({ metric: 'jctS.mean', label: 'JCT mean', unit: 'seconds', completedOnly: true });
    expect(rowOf('jctS.p50')).toMatchObject({ label: 'jctS.p50', unit: 'seconds', completedOnly: true });
    expect(rowOf('faults.byType.xid-79')).toMatchObject({ unit: 'count', completedOnly: false });
    expect(rowOf('fairness.jainSlowdown')).toMatchObject({ unit: 'number', completedOnly: true });
    expect(defaultRows()[0]!.metric).toBe('jobs.completed');
  });

  it('refuses an unknown name in one line with close matches, and an empty list', () => {
    const error = (value: string): string => {
      try {
        parse(value);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('expected an error');
    };
    expect(error('makespan,jct.mean')).toMatch(/^--metrics: unknown metric "jct\.mean"; did you mean jctS\.mean/);
    expect(error('gpuAlocationRate')).toMatch(/did you mean gpuAllocationRate/);
    expect(error('zzzzzzzz')).toMatch(/known: completed, failed, .* or a dotted name as in comparison\.csv$/);
    expect(error(' , ')).toBe('--metrics: name at least one metric');
    for (const value of ['jct.mean', 'gpuAlocationRate', 'zzzzzzzz']) expect(error(value)).not.toMatch(/\n/);
  });

  it('finds close names by edit distance and by containing', () => {
    expect(closeMatches('makespn', ['makespanS', 'jctS.mean'])).toEqual(['makespanS']);
    expect(closeMatches('restart', ['restarts', 'oomKills'])).toEqual(['restarts']);
  });
});
