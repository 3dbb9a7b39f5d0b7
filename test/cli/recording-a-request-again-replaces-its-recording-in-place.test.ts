import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FakeProvider } from 'modeltape/fake-provider';
import { loadTape } from 'modeltape/recordings';
import { runMain } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

// The loop a team runs every week: record, change a prompt, record again, replay in CI. Recording a
// request the tape holds replaces that recording, in place, the rest of the tape byte for byte
// (as Polly's record mode does); several recordings of one request only when asked (--append).
describe('modeltape run --mode record, a second time', () => {
  const dir = tempDir({ inProject: true });
  let upstream: Awaited<ReturnType<FakeProvider['listen']>>;

  beforeAll(async () => {
    // Unscripted: each answer names its call, so a re-recording is told apart from the first.
    upstream = await new FakeProvider().listen({ port: 0 });
  });
  afterAll(() => upstream.close());

  // An agent that asks each question given on its command line, in order.
  const agent = () => {
    const file = `${dir}/agent.mjs`;
    writeFileSync(
      file,
      `import OpenAI from 'openai';
const client = new OpenAI({ maxRetries: 0 });
for (const question of process.argv.slice(2)) {
  const answer = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }] });
  console.log(answer.choices[0].message.content);
}
`,
    );
    return file;
  };
  const record = (tape: string, questions: string[], extra: string[] = []) =>
    runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `openai=${upstream.url}`, ...extra, '--', process.execPath, agent(), ...questions], {
      env: { OPENAI_API_KEY: 'sk-fake-test-key-for-a-stand-in' },
      cwd: dir,
    });
  const answers = (tape: string) => loadTape(tape).exchanges.map(({ exchange }) => JSON.stringify(exchange.response.body));
  const userMessages = (tape: string) =>
    loadTape(tape).exchanges.map(({ exchange }) => {
      const body = exchange.request.body as { json: { messages: Array<{ content: string }> } };
      return body.json.messages[1]!.content;
    });

  test('replaces each recording it makes again, in place, leaves every other line byte for byte, and says how many were replaced and new', async () => {
    const tape = `${dir}/tapes/agent.jsonl`;
    const first = await record(tape, ['Where is Paris?', 'Where is Lyon?', 'Where is Nice?']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('3 recorded (0 replaced, 3 new)');
    const before = readFileSync(tape, 'utf8').split('\n');

    // A prompt changed: Lyon is asked again as it was, Nice is now Nantes.
    const second = await record(tape, ['Where is Lyon?', 'Where is Nantes?']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('2 recorded (1 replaced, 1 new)');
    expect(second.stderr).toContain('a request recorded again replaces its recording in place');
    expect(second.stderr).toContain('--append');

    const after = readFileSync(tape, 'utf8').split('\n');
    // Header, Paris, Lyon (replaced in place), Nice, then Nantes, new, at the end: nothing doubled.
    expect(userMessages(tape)).toEqual(['Where is Paris?', 'Where is Lyon?', 'Where is Nice?', 'Where is Nantes?']);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).toBe(before[1]);
    expect(after[2]).not.toBe(before[2]);
    expect(after[3]).toBe(before[3]);
    // The replaced line holds the new answer (the fake's later call), keyed and numbered as before.
    expect(answers(tape)[1]).not.toBe(JSON.stringify(JSON.parse(before[2]!).response.body));
    expect(JSON.parse(after[2]!).key).toBe(JSON.parse(before[2]!).key);
    expect(JSON.parse(after[2]!).ordinal).toBe(0);
    expect((await runMain(['verify', tape], { cwd: dir })).stdout).toContain('ok, 4 exchanges');

    // The replay answers Lyon with the new recording, and says what it left unused.
    const replay = await runMain(['run', '--tape', tape, '--', process.execPath, agent(), 'Where is Lyon?', 'Where is Nantes?'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(0);
    const replaced = JSON.parse(after[2]!) as { response: { body: { json: { choices: Array<{ message: { content: string } }> } } } };
    expect(replay.stdout.split('\n')[0]).toBe(replaced.response.body.json.choices[0]!.message.content);
    // Paris and Nice, named relative to the working directory.
    const shown = relative(process.cwd(), tape);
    expect(replay.stderr).toContain(`2 of 4 recordings unused: ${shown}:2, ${shown}:4 (modeltape inspect ${shown} --unused -- CMD lists them)`);
  });

  test('a request sent twice in one run is recorded twice, and a run sending it once replaces only the first', async () => {
    const tape = `${dir}/tapes/twice.jsonl`;
    expect((await record(tape, ['Again?', 'Again?'])).stderr).toContain('2 recorded (0 replaced, 2 new)');
    const second = await record(tape, ['Again?']);
    expect(second.stderr).toContain('1 recorded (1 replaced, 0 new)');
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.ordinal)).toEqual([0, 1]);
  });

  test('--append keeps the recording the tape holds and adds the new one after it, replayed in turn', async () => {
    const tape = `${dir}/tapes/append.jsonl`;
    await record(tape, ['Hello?']);
    const appended = await record(tape, ['Hello?'], ['--append']);
    expect(appended.code, appended.stderr).toBe(0);
    expect(appended.stderr).toContain('recording appends (--append)');
    expect(appended.stderr).toContain('1 recorded (0 replaced, 1 new)');
    expect(loadTape(tape).exchanges.map(({ exchange }) => exchange.ordinal)).toEqual([0, 1]);
    const replay = await runMain(['run', '--tape', tape, '--', process.execPath, agent(), 'Hello?', 'Hello?'], { cwd: dir });
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stderr).not.toContain('unused');
  });

  test('"append": true in modeltape.config.json does what --append does', async () => {
    const tape = `${dir}/tapes/config.jsonl`;
    await record(tape, ['Hi?']);
    writeFileSync(`${dir}/modeltape.config.json`, JSON.stringify({ append: true }));
    try {
      expect((await record(tape, ['Hi?'])).stderr).toContain('recording appends (--append)');
      expect(loadTape(tape).exchanges).toHaveLength(2);
    } finally {
      writeFileSync(`${dir}/modeltape.config.json`, '{}');
    }
  });

  test('--append outside record mode is a usage error that says why', async () => {
    const result = await runMain(['run', '--tape', `${dir}/none.jsonl`, '--append', '--', process.execPath, '-e', ''], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--append keeps the recordings a record run would replace, so it needs --mode record; got --mode replay');
  });
});
