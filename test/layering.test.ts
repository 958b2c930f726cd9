import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';
import { ROOT, folderWith } from './cli-run.js';

const require = createRequire(import.meta.url);
const config = require('../.dependency-cruiser.cjs') as IConfiguration;

/** Cruises `paths` (relative to `baseDir`) with the project's rules; each violation as `from -> to (rule)`. */
async function violations(paths: string[], baseDir = ROOT): Promise<string[]> {
  const { output } = await cruise(paths, {
    ...config.options,
    baseDir,
    validate: true,
    ruleSet: { forbidden: config.forbidden ?? [] },
  });
  const result = output as ICruiseResult;
  return result.summary.violations.map(describeViolation);
}

/** One violation as `from -> to (rule)`, with the loop when the rule is about one. */
function describeViolation(violation: IViolation): string {
  const loop = violation.cycle ? ` via ${violation.cycle.map((step) => step.name).join(' -> ')}` : '';
  return `${violation.from} -> ${violation.to} (${violation.rule.name})${loop}`;
}

describe('import layering', () => {
  it('src/ imports only downward, never test/, and has no import loops', async () => {
    const found = await violations(['src']);
    if (found.length > 0) console.log(`layering violations:\n${found.join('\n')}`);
    expect(found).toEqual([]);
  });

  it('the same rules catch an upward import, a file loop, a folder loop and an import of test code', async () => {
    const dir = folderWith({});
    const files: Record<string, string> = {
      'src/io/bytes.ts': "export const BYTES = 1;\n",
      'src/faults/catalog.ts': "import { SCENARIO } from '../scenario/load.js';\nexport const CATALOG = SCENARIO;\n",
      'src/scenario/load.ts': "import { BYTES } from '../io/bytes.js';\nexport const SCENARIO = BYTES;\n",
      'src/model/a.ts': "import { B } from './b.js';\nexport const A = 1;\nexport const AB = B;\n",
      'src/model/b.ts': "import { A } from './a.js';\nexport const B = A;\n",
      'src/engine/clock.ts': "import { HELPER } from '../../test/helper.js';\nexport const CLOCK = HELPER;\n",
      'test/helper.ts': 'export const HELPER = 1;\n',
      'src/policies/scheduling/queue.ts': "import { SLOT } from '../placement/slot.js';\nexport const QUEUE = SLOT;\n",
      'src/policies/scheduling/order.ts': 'export const ORDER = 1;\n',
      'src/policies/placement/slot.ts': 'export const SLOT = 1;\n',
      'src/policies/placement/spread.ts': "import { ORDER } from '../scheduling/order.js';\nexport const SPREAD = ORDER;\n",
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    const found = await violations(['src'], dir);
    expect(found.map((line) => line.replace(/ via .*/, '')).sort()).toEqual(
      [
        'src/faults/catalog.ts -> src/scenario/load.ts (layer-faults-imports-above)',
        'src/engine/clock.ts -> test/helper.ts (src-imports-test)',
        'src/model/a.ts -> src/model/b.ts (no-circular)',
        'src/policies/placement -> src/policies/scheduling (no-circular-folders)',
        'src/policies/scheduling -> src/policies/placement (no-circular-folders)',
      ].sort(),
    );
  });
});
