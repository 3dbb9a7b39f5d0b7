// Where a benchmark's tables go: bench/results/NAME.md (or BENCH_RESULTS_DIR, which
// bench/on-node.mjs sets to a folder per Node version), headed by what wrote them, when, and on
// which machine and Node. docs/benchmarks.md and its parts (docs/benchmarks-*.md) keep the prose
// and link these files: no number is copied by hand.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, platform, arch, totalmem } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The machine line every results file starts with. */
export function machine() {
  const list = cpus();
  return `Node ${process.version} · ${platform()} ${arch()} · ${list.length} × ${list[0]?.model.trim() ?? 'CPU'} · ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
}

/**
 * Writes `body` (Markdown: the tables and their settings) to NAME.md under a title and the line
 * saying which command wrote it, when and where; prints it and where it went. Returns the path.
 */
export function writeResults(name, { title, command, body, at = new Date() }) {
  const dir = process.env.BENCH_RESULTS_DIR ?? join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.md`);
  const text = `# ${title}\n\nWritten by \`${command}\` on ${at.toISOString().replace(/\.\d+Z$/, 'Z')} · ${machine()}\n\n${body.trim()}\n`;
  writeFileSync(file, text);
  process.stdout.write(`\n${text}\nWritten to ${relative(process.cwd(), file) || file}.\n`);
  return file;
}
