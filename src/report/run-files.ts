import { writeFilesAtomic, writeFileAtomic } from '../io/atomic-write.js';
import type { RunSummary } from '../metrics/summary.js';
import { runScenarioResult, type RunRequest } from '../sim/run-scenario.js';
import type { SimProgress, SimResult } from '../sim/simulation.js';
import { reportHtml } from './html/page.js';
import { jobsCsv } from './jobs-csv.js';
import { autoscaleCsv, ganttCsv, usageCsv } from './recorded-csv.js';
import { compareReportData, folderSource, memorySource, runReportData } from './report-folder.js';
import { scalePlanFiles, staleScalePlanFiles } from './scale-plans.js';
import { timelineCsv } from './timeline-csv.js';
import { join } from 'node:path';

/**
 * The files `dlsim run --out` writes, [path relative to the folder, contents]: jobs.csv,
 * timeline.csv, then usage.csv, gantt.csv and autoscale.csv when the run recorded them, one
 * scaleplans/<job>-scaleplan-<seq>.yaml per ScalePlan (when the run made any), report.html when
 * `report` names the folder (drawn from these files), then summary.json last: when it is there,
 * the other files are from the same run.
 */
export function runOutputFiles(result: Pick<SimResult, 'jobs' | 'endS' | 'timeline' | 'scalePlans' | 'recorded' | 'waits'>, summary: RunSummary, report?: { readonly folder: string }): [string, string][] {
  const recorded = result.recorded;
  const files: [string, string][] = [
    ['jobs.csv', jobsCsv(result.jobs, result.endS, result.waits)],
    ['timeline.csv', timelineCsv(result.timeline)],
    ...(recorded === undefined
      ? []
      : ([
          ['usage.csv', usageCsv(recorded)],
          ['gantt.csv', ganttCsv(recorded)],
          ['autoscale.csv', autoscaleCsv(recorded)],
        ] as [string, string][])),
    ...scalePlanFiles(result.scalePlans),
  ];
  const summaryFile: [string, string] = ['summary.json', `${JSON.stringify(summary, null, 2)}\n`];
  if (report !== undefined) files.push(['report.html', reportHtml(runReportData(memorySource([...files, summaryFile]), report.folder))]);
  files.push(summaryFile);
  return files;
}

/** Writes a run's files into `folder` as one set (an earlier run's plans that this run does not rewrite go). */
export function writeRunFiles(folder: string, files: readonly [string, string][]): void {
  writeFilesAtomic(
    folder,
    files,
    staleScalePlanFiles(
      folder,
      files.map(([name]) => name),
    ),
  );
}

/**
 * Makes one run of a set (`dlsim compare`) and, when the request names an output folder, writes
 * its files there (no report.html: the set's report is drawn across runs). Returns the summary.
 */
export async function runAndWrite(request: RunRequest, onProgress?: (progress: SimProgress) => void): Promise<RunSummary> {
  const result = await runScenarioResult(request, onProgress);
  if (request.outDir !== undefined) writeRunFiles(request.outDir, runOutputFiles(result, result.summary));
  return result.summary;
}

/** The folder of a compare folder's run files of a policy (its first seed's run): runs/<policy>. */
export function runFolderOf(compareFolder: string, policy: string): string {
  return join(compareFolder, 'runs', policy);
}

/** Draws report.html of a compare folder (comparison.json and runs/<policy>/) and writes it there. */
export function writeCompareReport(folder: string): string {
  const path = join(folder, 'report.html');
  writeFileAtomic(path, reportHtml(compareReportData(folderSource(folder), folder)));
  return path;
}
