import { describeSelectiveMutation, expectStyleFiles } from '../support/selective-mutation-scenario.js';
import { binOf } from '../support/test-runner-project.js';

// A Vitest suite: tapes per test from modeltape/vitest, tapes opened by hand inside tests, one asked
// for in a beforeAll (its file known), and one reached through the session's base URL with the
// global fetch (past its fetch: which test read it is not known).
describeSelectiveMutation({
  title: 'mutateSuite({ selective: true }) under Vitest',
  files: ['a.test.mjs', 'b.test.mjs', 'c.test.mjs', 'd.test.mjs', 'e.test.mjs'],
  twoTapesName: 'orders > two tapes',
  command: [process.execPath, binOf('vitest'), 'run'],
  project: {
    // One worker thread that keeps its modules between files: each mutant's run starts one process, not five.
    'vitest.config.mjs': `export default { test: { setupFiles: ['modeltape/vitest'], pool: 'threads', maxWorkers: 1, isolate: false } };\n`,
    ...expectStyleFiles('modeltape/vitest', '.test.mjs', (names) => `import { ${names} } from 'vitest';\n`),
  },
});
