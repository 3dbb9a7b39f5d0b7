// What `npm test` checks before the suite: the build, then the typecheck (the tests' types read the
// declarations the build writes), beside the format check, which reads neither. Each is one
// process on one core, so on two cores the format check costs no time. Each line's output is
// printed whole once it ends, the build's first; the exit is the first failure's, else 0.
import { spawn } from 'node:child_process';

// `npm run SCRIPT` with the npm that runs this (npm_execpath), quietly, its output kept.
function npmRun(script) {
  return new Promise((resolve) => {
    const npm = process.env.npm_execpath;
    const child = npm ? spawn(process.execPath, [npm, 'run', script]) : spawn('npm', ['run', script], { shell: process.platform === 'win32' });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ script, code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ script, code: code ?? (signal ? 1 : 0), output }));
  });
}

async function inOrder(...scripts) {
  const done = [];
  for (const script of scripts) {
    const result = await npmRun(script);
    done.push(result);
    if (result.code !== 0) break;
  }
  return done;
}

const [built, formatted] = await Promise.all([inOrder('build', 'typecheck'), inOrder('format:check')]);
let exit = 0;
for (const { script, code, output } of [...built, ...formatted]) {
  process.stdout.write(output);
  if (code !== 0) {
    process.stderr.write(`npm test: npm run ${script} failed (exit ${code})\n`);
    exit ||= code;
  }
}
process.exitCode = exit;
