import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dlsim, ROOT } from '../cli-run.js';

const CHROMIUM = '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`report-browser test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);

/** What the page shows of one chart kind: how many charts, their marks, and their legends' text. */
interface ChartSeen {
  readonly charts: number;
  readonly marks: number;
  readonly legend: string;
}

/** Opens a report in a new page, collecting console errors and warnings, page errors, failed requests and every request. */
async function openReport(browser: Browser, file: string): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('request', (request) => requests.push(request.url()));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, problems, requests };
}

describe('report.html in a browser', () => {
  it.skipIf(!haveChromium)('loads without errors and shows every chart with its series', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-browser-')), 'cmp');
    const run = dlsim('compare', 'scenarios/default.yaml', '--policies', 'fifo,dlrover', '--seeds', '2', '--set', 'workload.synthetic.jobs=60', '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const { page, problems, requests } = await openReport(browser, join(out, 'report.html'));

      const charts = await page.$$eval('svg[data-chart]', (svgs) =>
        svgs.map((svg) => ({
          name: svg.getAttribute('data-chart') ?? '',
          marks: svg.querySelectorAll('path[data-series], rect[data-series]').length,
          legend: svg.querySelector('.legend')?.textContent ?? '',
        })),
      );
      const seen: Record<string, ChartSeen> = {};
      for (const { name, marks, legend } of charts) {
        const before = seen[name] ?? { charts: 0, marks: 0, legend: '' };
        seen[name] = { charts: before.charts + 1, marks: before.marks + marks, legend: `${before.legend} ${legend}` };
      }
      const chart = (name: string): ChartSeen => seen[name] ?? { charts: 0, marks: 0, legend: '' };
      for (const name of ['jct-cdf', 'wait-cdf', 'gpu-allocation', 'gpu-utilization', 'pending-queue']) {
        expect(chart(name).charts, name).toBe(1);
        expect(chart(name).marks, name).toBeGreaterThanOrEqual(2);
        expect(chart(name).legend, name).toMatch(/fifo.*dlrover/);
      }
      for (const name of ['gantt', 'fault-timeline']) {
        expect(chart(name).charts, name).toBe(2);
        expect(chart(name).marks, name).toBeGreaterThan(0);
      }
      expect(chart('time-split').marks).toBeGreaterThanOrEqual(2);
      expect(await page.locator('svg[data-chart="time-split"] [data-axis="x"]').textContent()).toMatch(/fifo.*dlrover/);
      expect(chart('wait-reasons').marks).toBeGreaterThanOrEqual(2);
      expect(chart('autoscale-speed').marks).toBeGreaterThan(0);
      expect(await page.locator('table[data-table="summary"] tr').count()).toBeGreaterThan(5);
      // Every chart is drawn at its size (the SVG parsed and laid out).
      const sizes = await page.$$eval('svg[data-chart]', (svgs) => svgs.map((s) => s.getBoundingClientRect().height));
      expect(Math.min(...sizes)).toBeGreaterThan(50);
      expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
      expect(problems).toEqual([]);

      const shot = join(out, 'report.png');
      await page.screenshot({ path: shot, fullPage: true });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.log(`report screenshot: ${shot}`);
    } finally {
      await browser.close();
    }
  }, 120_000);

  // npm start's own comparison (its command read from package.json, into a scratch folder): the
  // report a fresh clone ends with. DLSIM_SCREENSHOT=docs/report.png saves the README's screenshot of it.
  it.skipIf(!haveChromium)('loads the report npm start writes, every policy in every chart, with no error', async () => {
    const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const args = /^node dist\/cli\/main\.js (.*) --out results\/latest && echo results\/latest\/report\.html$/.exec(start)?.[1]?.split(' ');
    if (args === undefined) throw new Error(`npm start is no longer "node dist/cli/main.js … --out results/latest && echo …": ${start}`);
    const out = join(mkdtempSync(join(tmpdir(), 'dlsim-browser-')), 'latest');
    const run = dlsim(...args, '--out', out);
    expect(run.code, run.stderr).toBe(0);
    const policies = args[args.indexOf('--policies') + 1]!.split(',');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
    try {
      const { page, problems, requests } = await openReport(browser, join(out, 'report.html'));
      const legends = await page.$$eval('svg[data-chart="jct-cdf"] .legend, svg[data-chart="gpu-allocation"] .legend', (nodes) => nodes.map((n) => n.textContent ?? ''));
      expect(legends).toHaveLength(2);
      for (const legend of legends) for (const policy of policies) expect(legend).toContain(policy);
      for (const chart of ['time-split', 'wait-reasons']) {
        const bars = await page.$$eval(`svg[data-chart="${chart}"] rect[data-policy]`, (rects) => [...new Set(rects.map((r) => r.getAttribute('data-policy')))]);
        expect(bars.sort(), chart).toEqual([...policies].sort());
      }
      expect(await page.locator('svg[data-chart="gantt"]').count()).toBe(policies.length);
      expect(requests.filter((url) => !url.startsWith('file:'))).toEqual([]);
      expect(problems).toEqual([]);
      const shot = process.env.DLSIM_SCREENSHOT ?? join(out, 'report.png');
      await page.screenshot({ path: shot, clip: { x: 0, y: 0, width: 1100, height: 2864 } });
      expect(statSync(shot).size).toBeGreaterThan(10_000);
      console.log(`npm start's report screenshot: ${shot}`);
    } finally {
      await browser.close();
    }
  }, 240_000);
});
