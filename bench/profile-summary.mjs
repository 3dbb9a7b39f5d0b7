// Summarizes V8 .cpuprofile files (from BENCH_PROFILE=1 npm run bench) as text: the functions
// with the most self time, and the modeltape functions (core, lookup, proxy, recordings, replay, fake-provider,
// schema, bench) with the most inclusive time, mapped back
// to the TypeScript sources through dist/*.js.map.
//
//   node bench/profile-summary.mjs [bench/results/profiles/record-json.cpuprofile ...] [--top N]
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const args = process.argv.slice(2);
const topIndex = args.indexOf('--top');
const TOP = topIndex >= 0 ? Number(args.splice(topIndex, 2)[1]) : 25;
let files = args;
if (files.length === 0) {
  const dir = join(here, 'results', 'profiles');
  files = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.cpuprofile'))
        .sort()
        .map((name) => join(dir, name))
    : [];
}
if (files.length === 0) {
  console.error('No profiles. Run: BENCH_PROFILE=1 npm run bench');
  process.exit(1);
}

const maps = new Map();
function sourceOf(url, line, column) {
  if (!url) return '';
  let path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(join(root, 'dist'))) {
    let map = maps.get(path);
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
      } catch {
        map = null;
      }
      maps.set(path, map);
    }
    const entry = map?.findEntry(line, column);
    if (entry && entry.originalSource) {
      const source = entry.originalSource.startsWith('file://') ? fileURLToPath(entry.originalSource) : resolve(dirname(path), entry.originalSource);
      return `${relative(root, source)}:${entry.originalLine + 1}`;
    }
  }
  if (path.startsWith(root)) path = relative(root, path);
  else if (path.includes('node_modules/')) path = path.slice(path.lastIndexOf('node_modules/'));
  return `${path}:${line + 1}`;
}

function label(frame) {
  return `${frame.functionName || '(anonymous)'} ${sourceOf(frame.url, frame.lineNumber, frame.columnNumber)}`.trim();
}

function summarize(file) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfTime = new Map();
  let total = 0;
  let idle = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    const node = nodes.get(profile.samples[i]);
    total += dt;
    if (node.callFrame.functionName === '(idle)') idle += dt;
    selfTime.set(node.id, (selfTime.get(node.id) ?? 0) + dt);
  }
  const busy = total - idle;
  const selfByLabel = new Map();
  const inclusiveByLabel = new Map();
  for (const [id, time] of selfTime) {
    const node = nodes.get(id);
    if (node.callFrame.functionName === '(idle)') continue;
    const own = label(node.callFrame);
    selfByLabel.set(own, (selfByLabel.get(own) ?? 0) + time);
    // Inclusive: charge every distinct frame on the stack once.
    const seen = new Set();
    for (let cursor = id; cursor !== undefined; cursor = parent.get(cursor)) {
      const frame = nodes.get(cursor).callFrame;
      const name = label(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusiveByLabel.set(name, (inclusiveByLabel.get(name) ?? 0) + time);
    }
  }
  const pct = (time) => `${((100 * time) / busy).toFixed(1).padStart(5)}%`;
  const lines = [
    `== ${relative(process.cwd(), file)}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(2)} s busy (${((100 * busy) / total).toFixed(0)}%)`,
  ];
  lines.push(`-- top ${TOP} by self time (% of busy)`);
  for (const [name, time] of [...selfByLabel].sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(`${pct(time)}  ${name}`);
  lines.push(`-- modeltape and bench functions by inclusive time (% of busy)`);
  const ours = [...inclusiveByLabel].filter(([name]) => /\s(dist\/)?(core|lookup|proxy|recordings|replay|fake-provider|schema|bench)\//.test(name));
  for (const [name, time] of ours.sort((a, b) => b[1] - a[1]).slice(0, TOP)) lines.push(`${pct(time)}  ${name}`);
  return lines.join('\n');
}

for (const file of files) console.log(`${summarize(file)}\n`);
