import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, TraceError } from '../../src/errors.js';
import { jsonArrayItems, type JsonArrayItem } from '../../src/workload/json-array-stream.js';
import { rejection } from '../cli-run.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dlsim-json-array-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let fileCount = 0;
/** Writes `text` to a fresh file in the test's temporary folder. */
async function jsonFile(text: string): Promise<string> {
  const file = join(dir, `array-${fileCount++}.json`);
  await writeFile(file, text);
  return file;
}

async function items(file: string): Promise<JsonArrayItem[]> {
  const out: JsonArrayItem[] = [];
  for await (const item of jsonArrayItems(file)) out.push(item);
  return out;
}

describe('jsonArrayItems', () => {
  it('yields each element with the line it starts on, whatever the nesting and the strings hold', async () => {
    const file = await jsonFile(
      [
        '[',
        '  {"a": [1, 2, {"b": "]},["}],',
        '   "c": "say \\"hi\\", then ]"},',
        '  [3, [4]], "x,y", 5 , true,',
        '  null',
        ']',
        '',
      ].join('\n'),
    );
    const got = await items(file);
    expect(got.map((item) => item.line)).toEqual([2, 4, 4, 4, 4, 5]);
    expect(got.map((item) => JSON.parse(item.text))).toEqual([
      { a: [1, 2, { b: ']},[' }], c: 'say "hi", then ]' },
      [3, [4]],
      'x,y',
      5,
      true,
      null,
    ]);
  });

  it('streams a file larger than one read chunk, with multi-byte characters across chunk boundaries', async () => {
    const elements = Array.from({ length: 3000 }, (_, k) => ({
      jobid: `application_${k}`,
      note: `ünïcödé ✓ 漢字 🚀 {[,"]} ${'x'.repeat(k % 97)}`,
      attempts: [{ start_time: '2017-10-01 00:00:00', detail: [{ gpus: ['gpu0', 'gpu1'] }] }],
    }));
    const file = await jsonFile(JSON.stringify(elements, null, 2));
    const got = await items(file);
    expect(got.map((item) => JSON.parse(item.text))).toEqual(elements);
    // Every element prints on the same number of lines, after the opening "[" line.
    const linesPerElement = JSON.stringify(elements[0], null, 2).split('\n').length;
    expect(linesPerElement).toBeGreaterThan(10);
    expect(got.map((item) => item.line)).toEqual(elements.map((_, k) => 2 + k * linesPerElement));
  });

  it('reads an empty array, a byte order mark and surrounding blanks', async () => {
    expect(await items(await jsonFile('  [ \n ]  \n'))).toEqual([]);
    expect(await items(await jsonFile('\uFEFF[{"a":1}]'))).toEqual([{ text: '{"a":1}', line: 1 }]);
  });

  it('yields empty text for an empty element so the caller reports it', async () => {
    const got = await items(await jsonFile('[1,\n,2,\n]'));
    expect(got).toEqual([
      { text: '1', line: 1 },
      { text: '', line: 2 },
      { text: '2', line: 2 },
      { text: '', line: 3 },
    ]);
  });

  it('passes a malformed element on as text (only that element fails to parse)', async () => {
    const got = await items(await jsonFile('[{"a": 1,}, {"b": 2}]'));
    expect(got.map((item) => item.text)).toEqual(['{"a": 1,}', '{"b": 2}']);
  });

  it('throws a located TraceError for a file that is not one array', async () => {
    const cases: [string, number, string][] = [
      ['\n{"a": 1}', 2, 'not a JSON array'],
      ['', 1, 'not a JSON array'],
      ['[{"a": 1},\n{"b": 2', 2, 'truncated JSON array'],
      ['[1, 2]\n[3]', 2, 'text after the array'],
      ['[{"a": 1}}, 2]', 1, 'unbalanced brackets'],
    ];
    for (const [text, line, reason] of cases) {
      const file = await jsonFile(text);
      const error = await rejection(items(file));
      expect(error, text).toBeInstanceOf(TraceError);
      expect(error, text).toMatchObject({ file, line, column: 'file', reason });
    }
  });

  it('reports a missing file as a ConfigError naming it', async () => {
    const error = await rejection(items(join(dir, 'absent.json')));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain('absent.json: no such file');
  });

  it('stops reading when the consumer stops', async () => {
    const file = await jsonFile(`[${Array.from({ length: 10_000 }, (_, k) => `{"k":${k}}`).join(',')}]`);
    const seen: number[] = [];
    for await (const item of jsonArrayItems(file)) {
      seen.push((JSON.parse(item.text) as { k: number }).k);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([0, 1, 2]);
  });
});
