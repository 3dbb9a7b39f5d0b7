import { readFileSync } from 'node:fs';
import {
  TapeNotFoundError,
  compileKeyRules,
  decodeBody,
  exchangeKey,
  findSecrets,
  parseTape,
  serializeLine,
  type TapeProblem,
} from '../recordings/index.js';
import { parseArguments, UsageError, type FlagSpec } from './arguments.js';
import { progressReporter, type CommandIo } from './io.js';

const FLAGS: readonly FlagSpec[] = [{ name: 'help', kind: 'boolean', description: 'show this help' }];

export const VERIFY_USAGE = `Usage: modeltape verify FILE

Checks a tape: the closed schema of every line, that every stored key matches its request under
the header's key rules, that every JSON response body with a sha256 still gives back the exact
bytes it was recorded from, and that no line holds a credential. Prints one line per problem
(FILE:LINE: …) and exits 1 if there is any. Torn lines, duplicate ordinals and lines not in
canonical form are warnings.`;

export async function verifyCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'verify');
  if (parsed.flags.help === true) {
    io.stdout.write(`${VERIFY_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) throw new UsageError('modeltape verify needs exactly one tape file: modeltape verify FILE');
  const file = parsed.positionals[0]!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new TapeNotFoundError(file, error);
    throw error;
  }
  const progress = progressReporter(io, `verifying ${file}`);
  const contents = parseTape(text, file, { onProgress: progress });
  const problems: TapeProblem[] = [...contents.problems];
  const warnings = contents.warnings.map((warning) => `${warning.file}:${warning.line}: warning: ${warning.message}`);

  if (contents.header) {
    const rules = compileKeyRules(contents.header.keyRules);
    const rawLines = text.split('\n');
    const seen = new Map<string, number>();
    if (`${rawLines[0]}\n` !== serializeLine(contents.header)) warnings.push(`${file}:1: warning: the header is not in canonical form (sorted keys, no spaces)`);
    for (const { exchange, line } of contents.exchanges) {
      const computed = exchangeKey(exchange.upstream, exchange.request, rules);
      if (computed !== exchange.key) {
        problems.push({
          file,
          line,
          field: '.key',
          message: `stored key ${exchange.key.slice(0, 12)}… does not match its request (computed ${computed.slice(0, 12)}…): the line was edited by hand or keyed with other rules. Record it again, or set "key" to ${computed}.`,
        });
      }
      decodeBody(exchange.response.body, {
        onMismatch: (mismatch) => {
          const field = `.response.body${mismatch.path}`;
          problems.push({
            file,
            line,
            field,
            message:
              `the response body no longer gives back the bytes it was recorded from (sha256 ${mismatch.recordedSha256.slice(0, 12)}…): at ${field}: ${mismatch.detail}. ` +
              `Replay serves it as it now reads (${mismatch.actualLength} bytes, sha256 ${mismatch.actualSha256.slice(0, 12)}…). ` +
              `If the edit is intended, set ".response.body.sha256" to "${mismatch.actualSha256}" (a layout entry the edit no longer fits is ignored); otherwise undo it or record the exchange again.`,
          });
        },
      });
      for (const secret of findSecrets(exchange)) {
        problems.push({ file, line, field: secret.path, message: `holds a credential at ${secret.path} (${secret.masked}); remove it from the tape and revoke the key` });
      }
      const id = `${exchange.key}#${exchange.ordinal}`;
      const previous = seen.get(id);
      if (previous !== undefined) warnings.push(`${file}:${line}: warning: ordinal ${exchange.ordinal} of key ${exchange.key.slice(0, 12)}… is also at line ${previous} (two writers recorded the same request); replay uses tape order`);
      else seen.set(id, line);
      if (`${rawLines[line - 1]}\n` !== serializeLine(exchange)) warnings.push(`${file}:${line}: warning: not in canonical form (the format's fields sorted, no spaces)`);
    }
  }
  progress.end();
  for (const warning of warnings) io.stderr.write(`${warning}\n`);
  for (const problem of problems) io.stdout.write(`${problem.file}:${problem.line}: ${problem.message}\n`);
  const count = contents.exchanges.length;
  if (problems.length > 0) {
    io.stdout.write(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${contents.lineCount} lines\n`);
    return 1;
  }
  io.stdout.write(`${file}: ok, ${count} exchange${count === 1 ? '' : 's'}${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}\n`);
  return 0;
}
