import { describeSelectiveMutation, expectStyleFiles } from '../support/selective-mutation-scenario.js';
import { binOf } from '../support/test-runner-project.js';

// A Jest suite (ES modules, so Node's --experimental-vm-modules): tapes per test from
// modeltape/jest, tapes opened by hand inside tests, one asked for in a beforeAll (its file known),
// and one reached through the session's base URL with the global fetch (which test read it is not known).
describeSelectiveMutation({
  title: 'mutateSuite({ selective: true }) under Jest',
  files: ['a.test.js', 'b.test.js', 'c.test.js', 'd.test.js', 'e.test.js'],
  // Jest joins a describe block's title and its test's with a space.
  twoTapesName: 'orders two tapes',
  command: [process.execPath, '--experimental-vm-modules', '--no-warnings', binOf('jest')],
  project: {
    // In band: each mutant's run starts one process, not a worker per core.
    'jest.config.json': `{ "testEnvironment": "node", "setupFilesAfterEnv": ["modeltape/jest"], "transform": {}, "maxWorkers": 1 }\n`,
    // Jest gives its functions as globals.
    ...expectStyleFiles('modeltape/jest', '.test.js', () => ''),
  },
});
