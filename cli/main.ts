#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MODELTAPE_VERSION } from '../recordings/internal.js';
import { ModeltapeError } from '../core/internal.js';
import { nearestName } from '../schema/internal.js';
import { exitStatusOf, UsageError } from './arguments.js';
import { driftCommand } from './drift-command.js';
import { fakeCommand } from './fake-command.js';
import { rekeyCommand } from './rekey-command.js';
import { inspectCommand } from './inspect-command.js';
import { mutateCommand } from './mutate-command.js';
import { mcpCommand } from './mcp-command.js';
import { maskedIo, processIo, resolveCommandIo, type CommandIo, type ResolvedCommandIo } from './io.js';
import { proxyCommand } from './proxy-command.js';
import { recheckCommand } from './recheck-command.js';
import { reportCommand } from './report-command.js';
import { runCommand } from './run-command.js';
import { verifyCommand } from './verify-command.js';

const COMMANDS: Record<string, { summary: string; run: (argv: readonly string[], io: ResolvedCommandIo) => Promise<number>; protocolOnStdout?: true }> = {
  proxy: { summary: 'run the recording proxy until stopped', run: proxyCommand },
  run: { summary: 'run a command with the proxy in front of its SDKs', run: runCommand },
  fake: { summary: 'serve the FakeProvider over HTTP until stopped', run: fakeCommand },
  // Its stdout is an MCP client's: the server's messages pass unmasked, as the server wrote them.
  mcp: { summary: 'record or replay an MCP server over stdio, where its command stood', run: mcpCommand, protocolOnStdout: true },
  drift: { summary: 'run a command against a replay and report every drifted request', run: driftCommand },
  inspect: { summary: 'list what a tape holds (--unused: what a run never used)', run: inspectCommand },
  mutate: { summary: 'run a command once per mutated answer and report what its tests never notice', run: mutateCommand },
  report: { summary: 'what tapes cover of provider behaviour, what they cost, how old they are', run: reportCommand },
  recheck: { summary: 'send what tapes recorded again and sort each changed answer: equivalent, changed, regression', run: recheckCommand },
  verify: { summary: 'check a tape; non-zero exit on any problem', run: verifyCommand },
  rekey: { summary: "re-derive a tape's keys under the current key rules", run: rekeyCommand },
};

export const USAGE = `modeltape ${MODELTAPE_VERSION}: record model-provider HTTP exchanges once, replay them strictly offline.

Usage: modeltape <command> [flags]

Commands:
${Object.entries(COMMANDS)
  .map(([name, command]) => `  ${name.padEnd(9)}${command.summary}`)
  .join('\n')}

Examples:
  modeltape run --tape tapes/chat.jsonl --mode record -- node app.mjs   record with a real key
  modeltape run --tape tapes/chat.jsonl -- npm test                     replay offline (the default)
  modeltape proxy --tape tapes/chat.jsonl --port 8080
  modeltape verify tapes/chat.jsonl

Run modeltape <command> --help for its flags.`;

/**
 * Runs the CLI and returns its exit status:
 * - 0: done, and nothing failed.
 * - 1: a failure: a request missed or was refused, a tape or file has problems, drift was found,
 *   a command's check failed, or an unexpected error.
 * - 2: a usage error (the codes in USAGE_ERROR_CODES): the command line is wrong; nothing was started.
 *   The error goes to stderr, as does the usage when no command is given.
 * `run`, `drift` and `inspect --unused` exit with CMD's own status when CMD fails (128 + the
 * signal's number when a signal ended it, 127 when it could not be started).
 */
export async function main(argv: readonly string[], unmaskedIo: CommandIo = processIo()): Promise<number> {
  const io = maskedIo(resolveCommandIo(unmaskedIo));
  const [name, ...rest] = argv;
  if (name === undefined) {
    // Asked for nothing: a usage error, so the usage goes where errors go.
    io.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${MODELTAPE_VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  try {
    if (command === undefined) {
      const nearest = nearestName(name, Object.keys(COMMANDS));
      throw new UsageError(
        `Unknown command ${JSON.stringify(name)}.${nearest ? ` Did you mean "${nearest}"?` : ''} Commands: ${Object.keys(COMMANDS).join(', ')}. See modeltape --help.`,
      );
    }
    return await command.run(rest, command.protocolOnStdout === true ? { ...io, stdout: resolveCommandIo(unmaskedIo).stdout } : io);
  } catch (error) {
    if (error instanceof ModeltapeError) {
      // A message that names its command already (`modeltape report: …`) gets no second prefix.
      io.stderr.write(`${/^modeltape [a-z]+: /.test(error.message) ? '' : 'modeltape: '}${error.message}\n`);
      return exitStatusOf(error);
    }
    throw error;
  }
}

// Run only when executed as the bin, not when imported by a test.
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (status) => {
      process.exitCode = status;
    },
    (error: unknown) => {
      // Masked and escaped as every other output: a provider's error may quote a key or a control.
      maskedIo(processIo()).stderr.write(`modeltape: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
