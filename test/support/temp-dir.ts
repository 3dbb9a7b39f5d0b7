import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach } from 'vitest';

const PROJECT_SCRATCH = fileURLToPath(new URL('../../test-output/', import.meta.url));

/**
 * A fresh temporary directory, emptied after each test (kept for the whole file with
 * `scope: 'file'`) and removed after the file. With `inProject`, it sits inside the project (test-output/, ignored by git),
 * so scripts written there can import the project's dependencies such as `openai`.
 */
export function tempDir(options: { scope?: 'test' | 'file'; inProject?: boolean } = {}): string {
  let base = tmpdir();
  if (options.inProject) {
    mkdirSync(PROJECT_SCRATCH, { recursive: true });
    base = PROJECT_SCRATCH;
  }
  const dir = mkdtempSync(join(base, 'modeltape-test-'));
  // Emptied after each test (the same path stays usable by the next one), removed after the file.
  if (options.scope !== 'file') {
    afterEach(() => {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
    });
  }
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
