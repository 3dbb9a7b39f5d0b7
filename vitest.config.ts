import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

// Tests that launch a real Chromium through playwright-core (in Node, not Vitest's browser mode).
const browserTests = ['test/replay/drift-report-reads-well-in-a-browser.test.ts', 'test/support/find-chromium.test.ts'];

// Tests that lay the off-machine stand-in under the process's sockets: it must come before
// modeltape's guard, which a process installs once and keeps, so each needs a process of its own.
const root = fileURLToPath(new URL('.', import.meta.url));
const standInTests = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
  .map((file) => join(root, 'test', file))
  .filter((file) => file.endsWith('.test.ts') && readFileSync(file, 'utf8').includes('offMachineStandIn()'))
  .map((file) => relative(root, file));

/**
 * Five projects; `vitest run` runs them all, each test file in exactly one.
 * - unit: the tests beside their source. They import the source, not `dist/`, so
 *   `npm run test:unit` needs no build and runs in seconds.
 * - integration: `test/`, through the package's exports (the built `dist/`).
 * - cli: `test/cli/`, the built command, in process through `main(argv, io)` or spawned.
 * - browser: the tests that open a page in Chromium.
 * - stand-in: the tests that lay the off-machine stand-in under the sockets (above).
 * All but the last share their workers' module graph between files (`isolate: false`): a file's
 * imports are loaded once per worker, not once per file, which halves the unit tests' time and
 * takes a quarter off the others'. So a test file restores what it changes in the process
 * (`vi.stubEnv` then `vi.unstubAllEnvs()`, handlers it installs), as the suite's files do.
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
          isolate: false,
          include: [
            '{core,schema,providers,recordings,lookup,guard,proxy,drift-report,fake-provider,replay,runtime,testkit,mutation,tape-report,recheck,cli}/**/*.test.ts',
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          isolate: false,
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, 'test/cli/**', ...browserTests, ...standInTests],
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          isolate: false,
          include: ['test/cli/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...standInTests],
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: browserTests,
        },
      },
      {
        extends: true,
        test: {
          name: 'stand-in',
          include: standInTests,
        },
      },
    ],
  },
});
