import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.js';
import { reportHtml } from '../report/html/page.js';
import { readReportFolder } from '../report/report-folder.js';
import { sweepFolderRows } from '../sweep/folder-rows.js';
import { sweepReport } from '../sweep/run-sweep.js';

interface ReportArgs {
  dir: string;
}

/** The report of a folder: a sweep's (sweep.json and its cells), or a run's or comparison's (their CSVs). */
function folderReport(dir: string): string {
  if (existsSync(join(dir, 'sweep.json'))) {
    const { record, rows, cells } = sweepFolderRows(dir);
    return sweepReport(record, rows, cells);
  }
  return reportHtml(readReportFolder(dir));
}

/** `dlsim report DIR`: draws DIR/report.html again from the files of a run, compare or sweep folder. */
export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <dir>',
  describe: 'Rebuild report.html from the files of a run folder (dlsim run --out), a compare folder (dlsim compare --out) or a sweep folder (dlsim sweep)',
  builder: (yargs: Argv<object>) => yargs.positional('dir', { type: 'string', demandOption: true, describe: 'the folder' }) as Argv<ReportArgs>,
  handler: (args: ArgumentsCamelCase<ReportArgs>) => {
    const path = join(args.dir, 'report.html');
    writeFileAtomic(path, folderReport(args.dir));
    process.stdout.write(`${path}\n`);
  },
};
