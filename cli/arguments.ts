import { ModeltapeError, checkChoice } from '../core/internal.js';
import { nearestName } from '../schema/internal.js';

/** One flag a command accepts. */
export interface FlagSpec {
  name: string;
  kind: 'string' | 'boolean' | 'integer' | 'list';
  /** For strings: the closed set of valid values. */
  choices?: readonly string[];
  /** Shown in help, e.g. `FILE`. */
  value?: string;
  description: string;
}

export interface ParsedArguments {
  flags: Record<string, string | boolean | number | string[] | undefined>;
  positionals: string[];
  /** Everything after `--`, or undefined when there was no `--`. */
  command: string[] | undefined;
}

/** A command line that does not parse. Exit status 2, as for any usage error. */
export class UsageError extends ModeltapeError {
  constructor(message: string) {
    super('usage', message);
  }
}

/**
 * The codes of the errors that say the command line itself is wrong: an unknown command or
 * flag, a flag without its value or with one outside its choices, a malformed --upstream or
 * --port, no tape, --prune without --mode auto. Nothing was started: exit status 2. Every
 * other error is a failure, exit status 1; so is a file the command line names that is not
 * there or not valid (a tape, a script, a --config file), as for `verify FILE`.
 */
export const USAGE_ERROR_CODES = [
  'usage',
  'invalid_choice',
  'invalid_upstream',
  'invalid_port',
  'tape_required',
  'prune_needs_auto',
  'append_needs_record',
  'invalid_chaos',
  'invalid_max_age',
] as const;

/** The exit status for an error a command threw: 2 for a usage error, 1 for a failure. */
export function exitStatusOf(error: ModeltapeError): 1 | 2 {
  return (USAGE_ERROR_CODES as readonly string[]).includes(error.code) ? 2 : 1;
}

/**
 * Parses `--flag value`, `--flag=value`, boolean `--flag`, repeated list flags, positionals, and
 * a command after `--`. Unknown flags and values outside a flag's choices are errors that name
 * what is valid.
 */
export function parseArguments(argv: readonly string[], specs: readonly FlagSpec[], commandName: string): ParsedArguments {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const parsed: ParsedArguments = { flags: {}, positionals: [], command: undefined };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    if (argument === '--') {
      parsed.command = argv.slice(index + 1);
      break;
    }
    if (!argument.startsWith('--') || argument === '--') {
      if (argument.startsWith('-') && argument.length > 1)
        throw new UsageError(`Unknown flag ${argument} for "${commandName}". Flags are spelled --name; see modeltape ${commandName} --help.`);
      parsed.positionals.push(argument);
      continue;
    }
    const equals = argument.indexOf('=');
    const name = argument.slice(2, equals < 0 ? undefined : equals);
    const spec = byName.get(name);
    if (spec === undefined) {
      const nearest = nearestFlag(name, specs);
      throw new UsageError(
        `Unknown flag --${name} for "${commandName}".${nearest ? ` Did you mean ${nearest}?` : ''} Valid flags: ${specs.map((flag) => `--${flag.name}`).join(', ')}`,
      );
    }
    if (spec.kind === 'boolean') {
      if (equals >= 0) throw new UsageError(`Flag --${name} takes no value.`);
      parsed.flags[name] = true;
      continue;
    }
    let value: string;
    if (equals >= 0) value = argument.slice(equals + 1);
    else {
      const next = argv[index + 1];
      if (next === undefined || (next.startsWith('--') && next.length > 2))
        throw new UsageError(`Flag --${name} needs a value${spec.value ? ` (${spec.value})` : ''}.`);
      value = next;
      index++;
    }
    if (spec.choices) checkChoice(`--${name}`, value, spec.choices);
    if (spec.kind === 'integer') {
      if (!/^\d+$/.test(value)) throw new UsageError(`Flag --${name} needs a whole number, got ${JSON.stringify(value)}.`);
      parsed.flags[name] = Number(value);
    } else if (spec.kind === 'list') {
      parsed.flags[name] = [...((parsed.flags[name] as string[] | undefined) ?? []), value];
    } else {
      parsed.flags[name] = value;
    }
  }
  return parsed;
}

/**
 * The flag nearest an unknown one, among every flag of the command, each also read with its value
 * (`--chaos-seed` is `--chaos SEED`, nearer than `--chaos-rate`), or undefined when none is near.
 */
function nearestFlag(name: string, specs: readonly FlagSpec[]): string | undefined {
  const spelled = new Map<string, string>();
  for (const spec of specs) {
    if (spec.value !== undefined) spelled.set(`${spec.name}-${spec.value.toLowerCase()}`, `--${spec.name} ${spec.value}`);
  }
  // Plain names win a tie: they are what was most likely meant.
  for (const spec of specs) spelled.set(spec.name, `--${spec.name}`);
  const nearest = nearestName(name, [...specs.map((spec) => spec.name), ...spelled.keys()]);
  return nearest === undefined ? undefined : spelled.get(nearest);
}

/** Help text for a command's flags, one per line. */
export function describeFlags(specs: readonly FlagSpec[]): string {
  const rows = specs.map((spec) => {
    const left = `  --${spec.name}${spec.kind === 'boolean' ? '' : ` ${spec.value ?? 'VALUE'}`}`;
    const choices = spec.choices ? ` (${spec.choices.join('|')})` : '';
    return [left, `${spec.description}${choices}`] as const;
  });
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `${left.padEnd(width)}${right}`).join('\n');
}
