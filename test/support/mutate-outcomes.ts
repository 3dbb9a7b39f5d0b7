import { expect } from 'vitest';
import { runMain } from './cli.js';

/** One mutant of `modeltape mutate --json`'s report. */
export interface ReportedMutant {
  line: number;
  operator: string;
  variant: string;
  outcome: string;
  after: string;
}

/**
 * `modeltape mutate --tape TAPE --jobs 2 --json --operators …` around `node DIR/suite.mjs`, which
 * must exit 0: the report, and each mutant's outcome by `LINE OPERATOR[ VARIANT]` (what the
 * per-provider mutate tests compare whole).
 */
export async function mutateOutcomes(
  dir: string,
  tape: string,
  operators: readonly string[],
): Promise<{ report: { score: number; mutants: ReportedMutant[] }; outcomes: Record<string, string> }> {
  const result = await runMain(
    ['mutate', '--tape', tape, '--jobs', '2', '--json', '--operators', operators.join(','), '--', process.execPath, `${dir}/suite.mjs`],
    { cwd: dir },
  );
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(result.stdout) as { score: number; mutants: ReportedMutant[] };
  const outcomes = Object.fromEntries(
    report.mutants.map((mutant) => [`${mutant.line} ${mutant.operator}${mutant.variant === '' ? '' : ` ${mutant.variant}`}`, mutant.outcome]),
  );
  return { report, outcomes };
}
