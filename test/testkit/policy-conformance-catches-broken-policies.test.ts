import { describe, expect, test } from 'vitest';
import type { Policy, Tool } from 'modeltape/runtime';
import { checkPolicy, checkPolicyBattery, never, PolicyDisagreementError, Refused } from 'modeltape/testkit';

const tools: Tool[] = [
  {
    name: 'lookup_parcel',
    description: 'Finds a parcel.',
    sideEffect: 'read',
    parameters: { type: 'object', properties: { parcel: { type: 'string', pattern: '^P-\\d{1,4}$' } }, required: ['parcel'], additionalProperties: false },
    run: () => null,
  },
  {
    name: 'send_message',
    description: 'Messages a customer.',
    sideEffect: 'remote_mutation',
    parameters: {
      type: 'object',
      properties: { to: { type: 'string', minLength: 1 }, text: { type: 'string', maxLength: 200 } },
      required: ['to', 'text'],
      additionalProperties: false,
    },
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

/** A good policy: reads allowed, messages reviewed after three, deletions denied. */
const policy: Policy = (request, view) => {
  if (request.sideEffect === 'destructive')
    return { outcome: 'deny', rule: 'no-destructive', reason: `${request.tool} is destructive and never runs unattended` };
  if (request.sideEffect === 'remote_mutation' && view.previousCalls.filter((call) => call.tool === request.tool).length >= 3)
    return { outcome: 'require_approval', kind: 'rate', rule: 'message-rate', reason: 'more than three messages in one run' };
  return { outcome: 'allow' };
};

describe('checkPolicy', () => {
  test("agrees on cases, refusing bad arguments through the runtime's own acceptance before the policy", () => {
    let evaluated = 0;
    const counting: Policy = (request, view) => (evaluated++, policy(request, view));
    const report = checkPolicy(counting, tools, [
      { name: 'a lookup', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'allow' },
      { name: 'a malformed parcel id', tool: 'lookup_parcel', args: { parcel: 'parcel one' }, want: Refused },
      { name: 'a tool that does not exist', tool: 'lookup_parcels', args: {}, want: Refused, reason: 'did you mean "lookup_parcel"' },
      { name: 'a deletion', tool: 'delete_account', args: { account: 7 }, want: 'deny', reason: ['destructive', 'unattended'] },
      {
        name: 'the fourth message',
        tool: 'send_message',
        args: { to: 'ana', text: 'hi' },
        view: { previousCalls: Array.from({ length: 3 }, () => ({ tool: 'send_message', args: {} })) },
        want: 'require_approval',
        kind: 'rate',
      },
    ]);
    report.assertAgrees();
    expect(report.results.every((result) => result.agrees)).toBe(true);
    expect(evaluated).toBe(3);
  });

  test('reports every disagreement in one table: case, request, wanted, got, reason', () => {
    const report = checkPolicy.report(policy, tools, [
      { name: 'deletion wanted reviewed', tool: 'delete_account', args: { account: 7 }, want: 'require_approval', kind: 'review' },
      { name: 'a string account', tool: 'delete_account', args: { account: 'seven' }, want: 'deny' },
      { name: 'a lookup', tool: 'lookup_parcel', args: { parcel: 'P-1' }, want: 'allow' },
    ]);
    expect(report.disagreements.map((row) => row.case)).toEqual(['deletion wanted reviewed', 'a string account']);
    expect(() => report.assertAgrees()).toThrow(PolicyDisagreementError);
    expect(report.table).toBe(
      [
        "  case                     │ request                             │ wanted                    │ got                         │ policy's reason",
        '  ─────────────────────────┼─────────────────────────────────────┼───────────────────────────┼─────────────────────────────┼───────────────────────────────────────────────────────────',
        '  deletion wanted reviewed │ delete_account({"account":7})       │ require_approval (review) │ deny                        │ delete_account is destructive and never runs unattended',
        '  a string account         │ delete_account({"account":"seven"}) │ deny                      │ refused (before the policy) │ invalid arguments for delete_account: .account must be in…',
      ].join('\n'),
    );
    expect(() => checkPolicy(policy, tools, [])).toThrow('checkPolicy was given no cases, so it checked nothing.');
  });
});

describe('never', () => {
  test('checks generated requests of every tool of a class under every view, and counts them', () => {
    const checked = never(policy, tools, 'destructive', 'allow', { count: 10 }, [{}, { step: 9 }]);
    expect(checked).toBe(20);
  });

  test('names the counterexamples when a class can get the outcome', () => {
    const views = [{}, { previousCalls: Array.from({ length: 3 }, () => ({ tool: 'send_message', args: {} })) }];
    expect(() => never(policy, tools, 'remote_mutation', 'require_approval', { count: 4 }, views)).toThrow(
      /^The policy answered require_approval to 4 of 8 generated remote_mutation requests:\n {2}send_message\(\{.*\}\) at step 0 after 3 calls: require_approval \(rate\) \(more than three messages in one run\)/,
    );
  });

  test('fails when no tool has the class, rather than passing having checked nothing', () => {
    expect(() => never(policy, tools, 'local_mutation', 'allow')).toThrow(
      'never(local_mutation, allow): no tool has side-effect class local_mutation (tools: lookup_parcel (read), send_message (remote_mutation), delete_account (destructive)), so nothing would be checked.',
    );
  });
});

describe('checkPolicyBattery', () => {
  test('passes a total, pure, order-independent policy whose refusals name rules, with a stable digest', () => {
    const report = checkPolicyBattery(policy, tools);
    report.assertConforms('parcel policy');
    expect(report.checks.map((check) => check.name)).toEqual([
      'total',
      'pure',
      'same answer twice',
      'same answer whatever came before',
      'refusals name a rule',
      'stable digest',
    ]);
    expect(report.requests).toBeGreaterThan(60);
    expect(report.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(checkPolicyBattery(policy, tools).digest).toBe(report.digest);
    expect(
      checkPolicyBattery((request, view) => (request.tool === 'lookup_parcel' ? { outcome: 'deny', rule: 'r', reason: 'x' } : policy(request, view)), tools)
        .digest,
    ).not.toBe(report.digest);
  });

  const failing = (bad: Policy): string[] =>
    checkPolicyBattery
      .report(bad, tools)
      .checks.filter((check) => !check.passed)
      .map((check) => check.name);

  test('catches a policy that reads a clock', () => {
    const clockReading: Policy = (request, view) =>
      new Date().getUTCHours() > 25 ? { outcome: 'deny', rule: 'night', reason: 'no work at night' } : policy(request, view);
    expect(failing(clockReading)).toEqual(['pure']);
    const report = checkPolicyBattery.report(clockReading, tools);
    expect(report.checks.find((check) => check.name === 'pure')?.problem).toContain('read the clock (new Date())');
    expect(Date.now()).toBeGreaterThan(0); // the globals are restored
  });

  test('catches a policy that reads randomness, one that remembers what it evaluated, one that is not total, one that mutates its view, and refusals without a rule', () => {
    expect(failing((request, view) => (Math.random() > 2 ? { outcome: 'allow' } : policy(request, view)))).toEqual(['pure']);
    let seen = 0;
    expect(
      failing((request, view) =>
        ++seen > 40 && request.sideEffect === 'read' ? { outcome: 'deny', rule: 'quota', reason: 'quota spent' } : policy(request, view),
      ),
    ).toEqual(expect.arrayContaining(['same answer twice', 'same answer whatever came before', 'stable digest']));
    expect(failing((request, view) => (request.tool === 'send_message' ? (undefined as never) : policy(request, view)))).toContain('total');
    expect(failing((request, view) => ((view.previousCalls as unknown[]).push({ tool: 'x', args: {} }), policy(request, view)))).toEqual(['pure']);
    expect(failing((request) => (request.sideEffect === 'destructive' ? { outcome: 'deny', reason: 'no' } : { outcome: 'allow' }))).toEqual([
      'refusals name a rule',
    ]);
  });
});
