import { describe, expect, test } from 'vitest';
import type { Policy, Tool } from 'modeltape/runtime';
import { checkPolicy, checkPolicyBattery, never, PolicyDisagreementError, type PolicyCase } from 'modeltape/testkit';

const tools: Tool[] = [
  {
    name: 'lookup_parcel',
    description: 'Finds a parcel.',
    sideEffect: 'read',
    parameters: { type: 'object', properties: { parcel: { type: 'string', pattern: '^P-\\d{1,4}$' } }, required: ['parcel'] },
    run: () => null,
  },
  {
    name: 'delete_account',
    description: 'Deletes an account.',
    sideEffect: 'destructive',
    parameters: { type: 'object', properties: { account: { type: 'integer', minimum: 1 } }, required: ['account'] },
    run: () => null,
  },
];

/** Lets everything through, deletions included: every check below should catch it. */
const lax: Policy = () => ({ outcome: 'allow' });
const cases: PolicyCase[] = [
  { name: 'a lookup', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'allow' },
  { name: 'a deletion', tool: 'delete_account', args: { account: 7 }, want: 'deny' },
];

function thrown(body: () => unknown): PolicyDisagreementError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyDisagreementError);
    return error as PolicyDisagreementError;
  }
  throw new Error('expected the check to throw');
}

describe('the policy checks, used as a test uses them', () => {
  test('checkPolicy throws on a disagreement, carrying the table; checkPolicy.report only reports it', () => {
    const error = thrown(() => checkPolicy(lax, tools, cases));
    expect(error.message).toBe(`The policy disagrees with 1 of 2 cases:\n${error.table}`);
    expect(error.table.split('\n')).toHaveLength(3); // header, rule, the one disagreeing case
    expect(error.table).toContain('a deletion');
    expect(error.table).toMatch(/delete_account\(\{"account":7\}\)\s+│ deny\s+│ allow/);

    const report = checkPolicy.report(lax, tools, cases);
    expect(report.passed).toBe(false);
    expect(report.disagreements.map((row) => row.case)).toEqual(['a deletion']);
    expect(report.table).toBe(error.table);
    expect(() => report.assertAgrees()).toThrow(error.message);
    expect(checkPolicy.report(lax, tools, []).passed).toBe(false); // a check of nothing does not pass
  });

  test('never throws naming the counterexamples; never.report counts them', () => {
    const error = thrown(() => never(lax, tools, 'destructive', 'allow', { count: 3 }));
    expect(error.message).toMatch(/^The policy answered allow to 3 of 3 generated destructive requests:\n {2}delete_account\(/);
    expect(error.table.split('\n')).toHaveLength(3);

    const report = never.report(lax, tools, 'destructive', 'allow', { count: 3 });
    expect(report).toMatchObject({ checked: 3, passed: false, invalid: [] });
    expect(report.counterexamples).toHaveLength(3);
    expect(() => report.assertNever()).toThrow(error.message);
    expect(never.report(lax, tools, 'remote_mutation', 'allow')).toMatchObject({
      checked: 0,
      passed: false,
      problem: expect.stringContaining('no tool has side-effect class remote_mutation'),
    });
  });

  test('checkPolicyBattery throws listing the failed checks; checkPolicyBattery.report only lists them', () => {
    const unnamed: Policy = (request) => (request.sideEffect === 'destructive' ? { outcome: 'deny', reason: 'never unattended' } : { outcome: 'allow' });
    const error = thrown(() => checkPolicyBattery(unnamed, tools, { name: 'parcel policy' }));
    expect(error.message).toBe(`Policy "parcel policy" fails 1 of 6 checks:\n${error.table}`);
    expect(error.table).toMatch(/^ {2}✗ refusals name a rule: delete_account\(/);
    expect(() => checkPolicyBattery(unnamed, tools)).toThrow(/^The policy fails 1 of 6 checks:/);

    const report = checkPolicyBattery.report(unnamed, tools);
    expect(report.passed).toBe(false);
    expect(report.checks.filter((check) => !check.passed).map((check) => check.name)).toEqual(['refusals name a rule']);
    // A conforming policy passes, and the report it returns still carries the digest to snapshot.
    const named: Policy = (request) =>
      request.sideEffect === 'destructive' ? { outcome: 'deny', rule: 'no-destructive', reason: 'never unattended' } : { outcome: 'allow' };
    expect(checkPolicyBattery(named, tools).digest).toMatch(/^[0-9a-f]{64}$/);
  });
});
