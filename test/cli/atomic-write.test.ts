import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { writeFileAtomic, writeFilesAtomic } from '../../src/io/atomic-write.js';

describe('writeFilesAtomic', () => {
  it('writes every file, the marker (last) included, and leaves no temporary file', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'dlsim-atomic-')), 'out');
    writeFilesAtomic(dir, [['a.csv', 'a\n'], ['done.json', '{}\n']]);
    expect(readdirSync(dir).sort()).toEqual(['a.csv', 'done.json']);
    expect(readFileSync(join(dir, 'a.csv'), 'utf8')).toBe('a\n');
  });

  it('a set cut short keeps no earlier marker and no temporary file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlsim-atomic-'));
    writeFileSync(join(dir, 'done.json'), 'old\n');
    // A folder where a file must go makes its rename fail after the temporaries are written.
    mkdirSync(join(dir, 'a.csv'));
    writeFileSync(join(dir, 'a.csv', 'keep'), 'x');
    const error = (() => {
      try {
        writeFilesAtomic(dir, [['a.csv', 'a\n'], ['done.json', '{}\n']]);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).not.toContain('\n');
    expect(existsSync(join(dir, 'done.json'))).toBe(false);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writeFileAtomic removes its temporary file when the rename fails', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dlsim-atomic-'));
    mkdirSync(join(dir, 'x.json'));
    writeFileSync(join(dir, 'x.json', 'keep'), 'x');
    expect(() => writeFileAtomic(join(dir, 'x.json'), '{}')).toThrow(ConfigError);
    expect(readdirSync(dir)).toEqual(['x.json']);
  });
});
