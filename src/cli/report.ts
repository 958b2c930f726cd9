import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { join } from 'node:path';
import { writeFileAtomic } from '../io/atomic-write.js';
import { reportHtml } from '../report/html/page.js';
import { readReportFolder } from '../report/report-folder.js';

interface ReportArgs {
  dir: string;
}

/** `dlsim report DIR`: draws DIR/report.html again from the CSVs of a run or compare folder. */
export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <dir>',
  describe: 'Rebuild report.html from the files of a run folder (dlsim run --out) or a compare folder (dlsim compare --out)',
  builder: (yargs: Argv<object>) => yargs.positional('dir', { type: 'string', demandOption: true, describe: 'the folder' }) as Argv<ReportArgs>,
  handler: (args: ArgumentsCamelCase<ReportArgs>) => {
    const html = reportHtml(readReportFolder(args.dir));
    const path = join(args.dir, 'report.html');
    writeFileAtomic(path, html);
    process.stdout.write(`${path}\n`);
  },
};
