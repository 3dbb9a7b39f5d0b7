import {
  compileKeyRules,
  firstDuplicateMember,
  decodeBody,
  exchangeKey,
  readTape,
  recordedAtOf,
  sha256Hex,
  serializeLine,
  type CompiledKeyRules,
  type DuplicateMember,
  type Exchange,
  type LoadedExchange,
  type TapeHeader,
  type TapeProblem,
} from '../recordings/internal.js';
import { ModeltapeError, findSecrets } from '../core/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import { progressReporter, type ResolvedCommandIo } from './io.js';
import { loadConfig } from '../proxy/internal.js';
import { addDate, staleVerdict, type TapeDates } from '../tape-report/internal.js';
import { AGE_FLAGS, ageDay, ageLimitFrom } from './report-command.js';

const FLAGS: readonly FlagSpec[] = [
  ...AGE_FLAGS,
  { name: 'config', kind: 'string', value: 'FILE', description: 'maxAge and stale (default modeltape.config.json, if present)' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const VERIFY_USAGE = `Usage: modeltape verify FILE

Checks a tape: the closed schema of every line, that every stored key matches its request under
the header's key rules, that every JSON response body with a sha256 still gives back the exact
bytes it was recorded from, that no line nests JSON deeper than 512 levels or names one member
twice, and that no line holds a credential. Prints one line per problem (FILE:LINE: …) and exits
1 if there is any. Torn lines, duplicate ordinals, a byte order mark, CRLF line endings and lines
not in canonical form are warnings. Reads the tape a line at a time: a tape of any size verifies.
With --max-age (or maxAge in the config), a tape whose oldest exchange is older is stale: a
warning, or a failure with --stale fail.

${describeFlags(FLAGS)}`;

export async function verifyCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'verify');
  if (parsed.flags.help === true) {
    io.stdout.write(`${VERIFY_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length !== 1) throw new UsageError('modeltape verify needs exactly one tape file: modeltape verify FILE');
  const file = parsed.positionals[0]!;
  const ageLimit = ageLimitFrom(parsed, loadConfig(parsed.flags.config as string | undefined, io.cwd).config);
  const dates: TapeDates = { file, oldest: undefined, newest: undefined, undated: 0, exchanges: 0 };
  const progress = progressReporter(io, `verifying ${file}`);
  const problems: TapeProblem[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, number>();
  let header: { value: TapeHeader; text: string } | undefined;
  let rules: CompiledKeyRules | undefined;
  const onHeader = (value: TapeHeader, text: string): void => {
    header = { value, text };
    try {
      rules = compileKeyRules(value.keyRules);
    } catch (error) {
      if (!(error instanceof ModeltapeError)) throw error;
      problems.push({ file, line: 1, field: '.keyRules', message: `the header's key rules cannot be used: ${error.message}` });
    }
  };
  let count = 0;
  // Each line is checked as it is read and not kept, so a tape of any size verifies in flat memory.
  const check = ({ exchange, line }: LoadedExchange, text: string): void => {
    count++;
    addDate(dates, exchange.recordedAt);
    if (header === undefined) return;
    try {
      problems.push(...checkExchange(exchange, line, rules, file));
    } catch (error) {
      // A line that breaks a check is a problem of that line, never the end of the run.
      problems.push({ file, line, field: '', message: `could not be checked: ${(error as Error).message}` });
    }
    const id = `${exchange.key}#${exchange.ordinal}`;
    const previous = seen.get(id);
    if (previous !== undefined)
      warnings.push(
        `${file}:${line}: warning: ordinal ${exchange.ordinal} of key ${exchange.key.slice(0, 12)}… is also at line ${previous} (two writers recorded the same request, or a re-recording was stopped before it replaced line ${previous}); replay answers with line ${previous} first. modeltape rekey ${file} keeps the later one in its place`,
      );
    else seen.set(id, line);
    if (`${text}\n` !== serializeLine(exchange)) {
      const duplicate = firstDuplicateMember(text);
      if (duplicate !== undefined) problems.push({ file, line, field: duplicate.path, message: duplicateMessage(duplicate) });
      else warnings.push(`${file}:${line}: warning: not in canonical form (the format's fields sorted, no spaces)`);
    }
  };
  const contents = readTape(file, { onProgress: progress, keepExchanges: false, onHeader, onExchange: check });
  // Problems of unreadable lines come first, in line order with the rest.
  // Concatenated, never spread: a tape may hold hundreds of thousands of them.
  prepend(problems, contents.problems);
  problems.sort((a, b) => a.line - b.line);
  prepend(
    warnings,
    contents.warnings.map((warning) => `${warning.file}:${warning.line}: warning: ${warning.message}`),
  );
  if (header !== undefined && `${header.text}\n` !== serializeLine(header.value)) {
    const duplicate = firstDuplicateMember(header.text);
    if (duplicate !== undefined) problems.unshift({ file, line: 1, field: duplicate.path, message: duplicateMessage(duplicate) });
    else warnings.push(`${file}:1: warning: the header is not in canonical form (sorted keys, no spaces)`);
  }
  progress.end();
  for (const warning of warnings) io.stderr.write(`${warning}\n`);
  for (const problem of problems) io.stdout.write(`${problem.file}:${problem.line}: ${problem.message}\n`);
  const stale = ageLimit === undefined || dates.exchanges === 0 ? undefined : staleVerdict([dates], ageLimit, recordedAtOf(ageDay(io.env)));
  for (const line of stale?.lines ?? []) io.stderr.write(`${line}\n`);
  if (problems.length > 0) {
    io.stdout.write(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'} in ${contents.lineCount} lines\n`);
    return 1;
  }
  if (stale?.failed === true) {
    io.stdout.write(`${file}: stale (see above; the limit is ${ageLimit!.maxAgeDays} days), ${count} exchange${count === 1 ? '' : 's'}\n`);
    return 1;
  }
  io.stdout.write(
    `${file}: ok, ${count} exchange${count === 1 ? '' : 's'}${warnings.length > 0 ? `, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}` : ''}\n`,
  );
  return 0;
}

/** The problems of one exchange line: its key, the bytes of its answer, credentials. */
function checkExchange(exchange: Exchange, line: number, rules: CompiledKeyRules | undefined, file: string): TapeProblem[] {
  const problems: TapeProblem[] = [];
  if (rules !== undefined) {
    const computed = exchangeKey(exchange.upstream, exchange.request, rules);
    if (computed !== exchange.key) {
      // The fingerprint of the bytes a client sent, against the body as the line now reads: a
      // body that no longer gives them back was edited by hand (the usual case of a stale key).
      const body = exchange.request.body;
      const edited = body !== undefined && sha256Hex(decodeBody(body)) !== exchange.request.bodySha256;
      problems.push({
        file,
        line,
        field: edited ? '.request.body' : '.key',
        message: edited
          ? `the request body was edited by hand: its stored key (${exchange.key.slice(0, 12)}…) and .request.bodySha256 were made from the bytes a client sent, and no longer match the body as it reads (its key is now ${computed.slice(0, 12)}…), so replay would never match this line. Run modeltape rekey ${file} to derive both from the body as it reads, or record the exchange again.`
          : `stored key ${exchange.key.slice(0, 12)}… does not match its request (computed ${computed.slice(0, 12)}…): the line was edited by hand or keyed with other rules, so replay would never match it. Run modeltape rekey ${file} to re-derive every key (or record it again).`,
      });
    }
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
    problems.push({
      file,
      line,
      field: secret.path,
      message: `holds a credential at ${secret.path} (${secret.masked}); remove it from the tape and revoke the key`,
    });
  }
  return problems;
}

function duplicateMessage(duplicate: DuplicateMember): string {
  return `the member "${duplicate.name}" appears twice in ${duplicate.path === '' ? 'the line' : duplicate.path} (a hand edit?): JSON readers keep only the last one, so the first is silently ignored. Delete the one you do not mean.`;
}

function prepend<T>(items: T[], first: readonly T[]): void {
  const rest = items.splice(0, items.length);
  for (const item of first) items.push(item);
  for (const item of rest) items.push(item);
}
