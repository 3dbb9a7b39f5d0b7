/**
 * A node:test reporter (the text of a module for a user's project) that prints what Vitest's
 * `--reporter=json` and Jest's `--json` give the runner scenarios: each test's full name (its
 * suites' names and its own, joined by spaces), status and failure messages. node:test relays a
 * test file's stderr to its reporter; this one writes it to its own stderr, as Vitest and Jest do.
 */
export const NODE_TEST_JSON_REPORTER = `export default async function* jsonReport(source) {
  const suites = new Map();
  const results = [];
  for await (const { type, data } of source) {
    if (type === 'test:stderr') process.stderr.write(data.message);
    if (type === 'test:start') {
      const names = (suites.get(data.file) ?? []).slice(0, data.nesting);
      names[data.nesting] = data.name;
      suites.set(data.file, names);
    }
    if ((type === 'test:pass' || type === 'test:fail') && data.details?.type !== 'suite') {
      const fullName = [...(suites.get(data.file) ?? []).slice(0, data.nesting), data.name].join(' ');
      const error = data.details?.error;
      const message = error === undefined ? [] : [String((error.cause ?? error)?.message ?? error)];
      results.push({ fullName, status: type === 'test:pass' ? 'passed' : 'failed', failureMessages: type === 'test:fail' ? message : [] });
    }
  }
  const count = (status) => results.filter((result) => result.status === status).length;
  yield JSON.stringify({ numPassedTests: count('passed'), numFailedTests: count('failed'), testResults: [{ assertionResults: results }] }) + '\\n';
}
`;
