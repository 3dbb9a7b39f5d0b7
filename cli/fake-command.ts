import { ModeltapeError } from '../core/internal.js';
import { FakeProvider } from '../fake-provider/internal.js';
import { describeFlags, parseArguments, UsageError, type FlagSpec } from './arguments.js';
import type { ResolvedCommandIo } from './io.js';

const FLAGS: readonly FlagSpec[] = [
  { name: 'port', kind: 'integer', value: 'N', description: 'port to listen on; 0 picks a free one (default 0)' },
  { name: 'host', kind: 'string', value: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
  { name: 'script', kind: 'string', value: 'FILE', description: 'a JSONL script of answers; without one the fake is unscripted' },
  { name: 'help', kind: 'boolean', description: 'show this help' },
];

export const FAKE_USAGE = `Usage: modeltape fake [--port N] [--host HOST] [--script FILE]

Serves the FakeProvider over HTTP until SIGINT or SIGTERM: OpenAI chat completions, responses,
embeddings and models under /v1, Anthropic messages under /v1/messages and /messages, Gemini
generateContent, countTokens and embeddings under /v1beta/models, Ollama under /api, OpenAI
Realtime sessions over WebSocket at /v1/realtime?model=…, AWS Bedrock Runtime's Converse and
InvokeModel at /model/{modelId}/…, Google Vertex AI's Gemini and Claude paths at /v1/projects/…,
Azure OpenAI's routes under /azure/openai/…, and all of them under /openai/…, /anthropic/…,
/gemini/… and /ollama/… so the fake can stand behind the proxy as an upstream. The first line on
stdout is "modeltape fake listening on http://HOST:PORT"; then OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
GOOGLE_GEMINI_BASE_URL, OLLAMA_HOST, AWS_ENDPOINT_URL_BEDROCK_RUNTIME, AZURE_OPENAI_ENDPOINT and
GOOGLE_VERTEX_BASE_URL for the clients (one port speaks HTTP/1.1 and the cleartext HTTP/2 the AWS
SDK's client speaks to an http:// endpoint; a Vertex AI client's token comes from the fake too:
placeholderGoogleCredentials(URL) from modeltape/replay).

Without --script the fake is unscripted: a request for a schema gets a value made from it, the
first turn of a tool loop calls the first tool, every other turn gets text. With a script,
running out of it is an error (it never repeats its last answer).

${describeFlags(FLAGS)}`;

export async function fakeCommand(argv: readonly string[], io: ResolvedCommandIo): Promise<number> {
  const parsed = parseArguments(argv, FLAGS, 'fake');
  if (parsed.flags.help === true) {
    io.stdout.write(`${FAKE_USAGE}\n`);
    return 0;
  }
  if (parsed.positionals.length > 0)
    throw new UsageError(`Unexpected argument ${JSON.stringify(parsed.positionals[0])} for "fake". See modeltape fake --help.`);
  const port = (parsed.flags.port as number | undefined) ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ModeltapeError('invalid_port', `Invalid --port ${JSON.stringify(parsed.flags.port)}: expected an integer from 0 to 65535 (0 picks a free port)`);
  }
  const script = parsed.flags.script as string | undefined;
  // A server may run for days: keep the latest calls, not every call.
  const options = { historyLimit: 1000 };
  const fake = script === undefined ? new FakeProvider(options) : FakeProvider.fromScript(script, options);
  const server = await fake.listen({ port, host: (parsed.flags.host as string | undefined) ?? '127.0.0.1' });
  io.stdout.write(`modeltape fake listening on ${server.url}\n`);
  // One variable per client that reads one; the `ollama` npm package reads none (pass OLLAMA_HOST as `host`).
  io.stdout.write(
    `OPENAI_BASE_URL=${server.baseUrls.openai}\nANTHROPIC_BASE_URL=${server.baseUrls.anthropic}\n` +
      `GOOGLE_GEMINI_BASE_URL=${server.baseUrls.gemini}\nOLLAMA_HOST=${server.baseUrls.ollama}\n` +
      `AWS_ENDPOINT_URL_BEDROCK_RUNTIME=${server.baseUrls.bedrock}\nAZURE_OPENAI_ENDPOINT=${server.baseUrls.azure}\n` +
      `GOOGLE_VERTEX_BASE_URL=${server.baseUrls.vertex}\n`,
  );
  io.stdout.write(script === undefined ? 'unscripted\n' : `script ${script}\n`);
  await new Promise<void>((resolve) => {
    io.signals.once('SIGINT', resolve);
    io.signals.once('SIGTERM', resolve);
  });
  await server.close();
  const calls = fake.callCount;
  const problems = fake.problems();
  const turns = fake.asked({ latest: true });
  const problemCount = problems.length + problems.dropped;
  io.stdout.write(
    `modeltape fake: ${calls} call${calls === 1 ? '' : 's'}, ${turns.length + turns.dropped} model turns, ${problemCount} problem${problemCount === 1 ? '' : 's'}\n`,
  );
  for (const problem of problems) io.stdout.write(`  - ${problem.split('\n').join('\n    ')}\n`);
  if (problems.dropped > 0) io.stdout.write(`  … and ${problems.dropped} more, not kept\n`);
  if (script !== undefined && calls > 0) {
    try {
      fake.assertConsumed();
    } catch (error) {
      io.stdout.write(`${(error as Error).message}\n`);
      return 1;
    }
  }
  return problemCount > 0 ? 1 : 0;
}
