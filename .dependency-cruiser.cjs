/**
 * Import layering of src/: each line may import the lines below it, never those above; folders on
 * one line may not import each other in a loop. Checked by test/layering.test.ts.
 */
const LAYERS = [
  ['cli'],
  ['bench', 'sweep'],
  ['report'],
  ['sim'],
  ['scenario'],
  ['policies'],
  ['faults'],
  ['workload'],
  ['model'],
  ['metrics'],
  ['engine'],
  ['io', 'errors.ts'],
];

/** Path pattern of the files on one layer line (a folder `x` or a file `x.ts` directly in src/). */
function layerPattern(entries) {
  const parts = entries.map((entry) => (entry.endsWith('.ts') ? `${entry.replace(/\./g, '\\.')}$` : `${entry}/`));
  return `^src/(${parts.join('|')})`;
}

const upwardRules = LAYERS.slice(1).map((entries, index) => ({
  name: `layer-${entries[0]}-imports-above`,
  comment: `src/${entries.join(', src/')} may not import ${LAYERS.slice(0, index + 1).flat().join(', ')}`,
  severity: 'error',
  from: { path: layerPattern(entries) },
  to: { path: layerPattern(LAYERS.slice(0, index + 1).flat()) },
}));

const ON_A_LAYER = layerPattern(LAYERS.flat());

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...upwardRules,
    {
      name: 'file-off-the-layers',
      comment: 'every file in src/ lies on a layer line above; add a new folder to LAYERS',
      severity: 'error',
      from: { path: '^src/', pathNot: ON_A_LAYER },
      to: {},
    },
    {
      name: 'import-off-the-layers',
      comment: 'every file in src/ lies on a layer line above; add a new folder to LAYERS',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: ON_A_LAYER },
    },
    {
      name: 'src-imports-test',
      comment: 'product code may not import test code',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'no file may reach itself through its imports',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'no folder may reach itself through its imports (folders on one layer line included)',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
  },
};
