import { execFile } from 'node:child_process';
import { isBuiltin } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';

const PROBE = fileURLToPath(new URL('../support/sqlite-driver-probe.mjs', import.meta.url));

interface ProbeReport {
  entry: string;
  requested: string[];
  driver?: string;
  error?: { name: string; code: string; message: string };
}

async function probe(entry: string, ...flags: string[]): Promise<ProbeReport & { stderr: string }> {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, [PROBE, entry, ...flags]);
  return { ...(JSON.parse(stdout) as ProbeReport), stderr };
}

describe('the SQLite drivers', () => {
  // Users who only record, replay or use the fake never load (or need) a native module.
  test("are requested by no entry of the package on import, the runtime, the testkit and the test runners' setup files included", async () => {
    const entries = [
      'modeltape/recordings',
      'modeltape/replay',
      'modeltape/proxy',
      'modeltape/fake-provider',
      'modeltape/runtime',
      'modeltape/testkit',
      'modeltape/vitest',
      'modeltape/jest',
    ];
    const reports = await Promise.all(entries.map((entry) => probe(entry)));
    expect(reports).toEqual(entries.map((entry) => ({ entry, requested: [], stderr: '' })));
  });

  test('are requested when a journal store opens: node:sqlite where this Node has it, else better-sqlite3', async () => {
    const hasNodeSqlite = isBuiltin('node:sqlite');
    const report = await probe('modeltape/runtime', '--open');
    expect(report.error).toBeUndefined();
    // The probe sees the load it exists to catch, so its empty lists above mean something.
    expect(report.driver).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3');
    expect(report.requested).toEqual(hasNodeSqlite ? ['node:sqlite'] : ['node:sqlite', 'better-sqlite3']);
    // Node 22 warns that SQLite is experimental on its first load; the store keeps that to itself.
    expect(report.stderr).toBe('');
  });

  test('when neither is there, the store says what it tried and names the install command', async () => {
    const report = await probe('modeltape/runtime', '--open', '--hide');
    expect(report.error).toEqual({
      name: 'SqliteDriverMissingError',
      code: 'sqlite_driver_missing',
      message:
        `The SQLite journal store has no driver to run on (Node ${process.version}):\n` +
        `  node:sqlite: not in Node ${process.version} (built in from Node 22.13; 22.5 to 22.12 need --experimental-sqlite)\n` +
        '  better-sqlite3: not installed (an optional peer dependency of modeltape)\n' +
        'Install one with: npm install better-sqlite3@12.11.1, or run on Node 22.13 or later, which has node:sqlite built in.',
    });
  });
});
