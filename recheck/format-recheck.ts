import { VERDICTS } from './compare-answers.js';
import { usdText, type CheckedExchange, type RecheckReport } from './recheck-exchanges.js';

/** The terminal report: counts per verdict, each exchange that moved with its reasons, what was not checked and why, and the spend. */
export function formatRecheckReport(report: RecheckReport, options: { cwdRelative?: (file: string) => string } = {}): string {
  const where = (tape: string, line: number): string => `${options.cwdRelative?.(tape) ?? tape}:${line}`;
  const lines: string[] = [];
  if (report.dryRun) {
    lines.push(`modeltape recheck --dry-run: would send ${report.planned.length} recorded request${report.planned.length === 1 ? '' : 's'}; nothing was sent.`);
    for (const planned of report.planned)
      lines.push(
        `  ${where(planned.tape, planned.line)}  ${planned.method} /${planned.upstream}${planned.path}  ${planned.model ?? '(no model)'}  ${planned.estimatedUsd === undefined ? 'cost unknown' : `~${usdText(planned.estimatedUsd)}`}`,
      );
    lines.push(`Estimated cost: ${usdText(report.estimatedUsd)}${unpricedNote(report)}`);
  } else {
    const counts = VERDICTS.map((verdict) => `${report.counts[verdict]} ${verdict}`).join(', ');
    lines.push(`modeltape recheck: ${report.checked.length} checked: ${counts}; ${report.notChecked.length} not checked.`);
    for (const checked of report.checked) if (checked.verdict !== 'identical') lines.push(...describeChecked(checked, where));
  }
  const notChecked = report.notChecked;
  if (notChecked.length > 0) {
    lines.push(`Not checked (${notChecked.length}):`);
    for (const entry of notChecked.slice(0, 50)) lines.push(`  ${where(entry.tape, entry.line)}  ${entry.reason}`);
    if (notChecked.length > 50) lines.push(`  … and ${notChecked.length - 50} more (see --json)`);
  }
  if (!report.dryRun) {
    const { tokens } = report.spent;
    lines.push(
      `Spent: ${report.spent.requests} request${report.spent.requests === 1 ? '' : 's'}, ${tokens.input + tokens.cachedInput + tokens.cacheWrite} input and ${tokens.output} output tokens, ${usdText(report.spent.usd)}${unpricedNote(report)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function describeChecked(checked: CheckedExchange, where: (tape: string, line: number) => string): string[] {
  const { model } = checked;
  const moved =
    model.then !== model.now
      ? `, answered by ${model.then ?? '(unknown)'} → ${model.now ?? '(unknown)'}`
      : model.now === undefined
        ? ''
        : `, answered by ${model.now}`;
  return [
    `  ${checked.verdict.toUpperCase()}  ${where(checked.tape, checked.line)}  ${checked.method} /${checked.upstream}${checked.path}  ${model.requested ?? '(no model)'}${moved}`,
    ...checked.reasons.map((reason) => `    ${reason}`),
  ];
}

function unpricedNote(report: RecheckReport): string {
  return report.spent.unpricedModels.length === 0 ? '' : ` (no price for ${report.spent.unpricedModels.join(', ')}: not counted)`;
}
