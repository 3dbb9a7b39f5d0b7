import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { expect, test } from 'vitest';
import { SqliteJournalStore } from 'modeltape/runtime';
import { tempDir } from '../support/temp-dir.js';

const PAGE = fileURLToPath(new URL('../../docs/runtime.md', import.meta.url));

/** The first ```ts block of docs/runtime.md, as the reader copies it. */
function runtimeSnippet(): string {
  const page = readFileSync(PAGE, 'utf8');
  const code = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
  expect(code, 'docs/runtime.md has a ```ts block').toBeDefined();
  return code!;
}

// In the project's scratch folder, so the snippet's `modeltape/...` imports resolve to this package.
const dir = tempDir({ inProject: true });

test("the runtime page's first snippet runs twice in a row on one journal file, each run under a fresh id", async () => {
  const snippet = runtimeSnippet();
  expect(snippet).toContain("SqliteJournalStore.open('journal.sqlite')");
  const script = join(dir, 'runtime-snippet.mjs');
  const javascript = ts.transpileModule(snippet, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  writeFileSync(
    script,
    `${javascript}\nconsole.log(JSON.stringify({ runId: outcome.runId, status: outcome.status, output: outcome.output, replayed: replayed.status }));\n`,
  );

  const runs: Array<{ runId: string; status: string; output: string; replayed: string }> = [];
  for (let time = 0; time < 2; time++) {
    // Fails here with RunExistsError when the snippet's run ids repeat from one process to the next.
    const { stdout } = await promisify(execFile)(process.execPath, [script], { cwd: dir });
    runs.push(JSON.parse(stdout.trim().split('\n').at(-1)!));
  }
  expect(runs.map(({ status, output, replayed }) => ({ status, output, replayed }))).toEqual([
    { status: 'completed', output: 'Parcel P-1 is in Lyon.', replayed: 'completed' },
    { status: 'completed', output: 'Parcel P-1 is in Lyon.', replayed: 'completed' },
  ]);
  expect(runs[0]!.runId).not.toBe(runs[1]!.runId);

  // Both runs are in the one journal file.
  expect(existsSync(join(dir, 'journal.sqlite'))).toBe(true);
  const store = SqliteJournalStore.open(join(dir, 'journal.sqlite'));
  try {
    for (const { runId } of runs) expect((await store.getRun(runId))?.status).toBe('completed');
  } finally {
    await store.close();
  }
});
