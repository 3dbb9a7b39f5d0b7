import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests that launch a real Chromium through playwright-core (in Node, not Vitest's browser mode).
const browserTests = ['test/replay/drift-report-reads-well-in-a-browser.test.ts', 'test/support/find-chromium.test.ts'];

/**
 * Four projects; `vitest run` runs them all, each test file in exactly one.
 * - unit: the tests beside their source. They import the source, not `dist/`, so
 *   `npm run test:unit` needs no build and runs in seconds.
 * - integration: `test/`, through the package's exports (the built `dist/`).
 * - cli: `test/cli/`, the built command, in process through `main(argv, io)` or spawned.
 * - browser: the tests that open a page in Chromium.
 */
export default defineConfig({
  test: {
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine. Most
    // files wait on sockets and child processes, so a worker per core halves the suite's time.
    maxWorkers: availableParallelism(),
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [
            '{core,schema,providers,recordings,lookup,guard,proxy,drift-report,fake-provider,replay,runtime,testkit,mutation,tape-report,recheck,cli}/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/cli/**', ...browserTests],
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['test/cli/**/*.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserTests,
        },
      },
    ],
  },
});
