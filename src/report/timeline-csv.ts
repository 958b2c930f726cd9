import { stringify } from 'csv-stringify/sync';
import { roundS } from '../metrics/summary.js';
import type { TimelineRow } from '../sim/fault-tracker.js';

/** The fault and recovery timeline as CSV: timeS,event,faultType,node,gpu,job,detail. */
export function timelineCsv(rows: readonly TimelineRow[]): string {
  return stringify([
    ['timeS', 'event', 'faultType', 'node', 'gpu', 'job', 'detail'],
    ...rows.map((r) => [roundS(r.timeS), r.event, r.faultType, r.node, r.gpu ?? '', r.jobId, r.detail]),
  ]);
}
