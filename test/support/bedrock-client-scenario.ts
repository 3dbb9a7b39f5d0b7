import { readFileSync, writeFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { loadTape } from 'modeltape/recordings';
import { startBedrockUpstream, type BedrockUpstream } from './bedrock-upstream.js';
import { closeAfterEach } from './close-after-each.js';
import { runMain } from './cli.js';
import { tempDir } from './temp-dir.js';

/** One Bedrock client, as a user's unmodified code calls it under `modeltape run`. */
export interface BedrockClientCase {
  /** The test's name: what the client does and what it shows. */
  name: string;
  /** The application, an ES module that prints its answers as one JSON line; PROMPT changes its first prompt. */
  app: string;
  /** The region variable the client reads (ChatBedrockConverse reads AWS_DEFAULT_REGION only). */
  region: 'AWS_REGION' | 'AWS_DEFAULT_REGION';
  /** Whether the shared credential and config files point nowhere, so no lookup can find a real one. @default true */
  noLookups?: boolean;
  /** What the replay's environment adds (a profile that does not exist, which the placeholders must win over). */
  replayEnv?: Record<string, string>;
  /** The paths the stand-in receives, in order, as the client encodes the model id; the tape keeps them so. */
  paths: readonly string[];
  /** What else the stand-in's requests must show (the body's `anthropic_version`). */
  checkRequests?(requests: BedrockUpstream['requests']): void;
  /** What the recorded run printed. */
  checkLive(live: Record<string, unknown>): void;
  /** The difference a changed prompt's miss shows on the first path. */
  difference: string;
}

// Built at runtime so no file holds an access-key-shaped literal.
const ACCESS_KEY_ID = ['AKIA', 'FAKE'.repeat(4)].join('');
const SECRET = `fake-secret-${'S'.repeat(28)}`;
const SESSION_TOKEN = `fake-session-token-${'T'.repeat(40)}`;

const outputOf = (stdout: string) => JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;

/**
 * Records the client's calls under `modeltape run` from the Bedrock stand-in (which checks the
 * re-signed SigV4 signature with the credentials it was given), then replays them offline with no
 * credentials and no endpoint, then misses on a changed prompt with its difference. The same
 * scaffolding and checks for every client; each test file gives its client.
 */
export function recordsUnderRunThenReplaysOffline(client: BedrockClientCase): void {
  const dir = tempDir({ inProject: true });
  const started = closeAfterEach();

  test(client.name, async () => {
    // No credential lookup may leave the machine: no instance role, no shared files.
    const lookups: Record<string, string> = { AWS_EC2_METADATA_DISABLED: 'true' };
    if (client.noLookups !== false)
      Object.assign(lookups, { AWS_SHARED_CREDENTIALS_FILE: `${dir}/no-such-credentials`, AWS_CONFIG_FILE: `${dir}/no-such-config` });
    const credentials = {
      ...lookups,
      AWS_ACCESS_KEY_ID: ACCESS_KEY_ID,
      AWS_SECRET_ACCESS_KEY: SECRET,
      AWS_SESSION_TOKEN: SESSION_TOKEN,
      [client.region]: 'us-east-1',
    };
    const offline = client.noLookups === false ? {} : lookups;

    const standIn = started(await startBedrockUpstream({ accessKeyId: ACCESS_KEY_ID, secretAccessKey: SECRET, sessionToken: SESSION_TOKEN }));
    const app = `${dir}/app.mjs`;
    writeFileSync(app, client.app);
    const tape = `${dir}/bedrock.jsonl`;

    const recorded = await runMain(['run', '--tape', tape, '--mode', 'record', '--upstream', `bedrock=${standIn.url}`, '--', process.execPath, app], {
      env: credentials,
    });
    expect(recorded.code, recorded.stderr).toBe(0);
    const live = outputOf(recorded.stdout);
    // Every request reached the stand-in signed again, for its own host, with the real key.
    expect(standIn.requests.map((request) => [request.path, request.rejectedWith])).toEqual(client.paths.map((path) => [path, undefined]));
    client.checkRequests?.(standIn.requests);
    client.checkLive(live);
    await standIn.close();

    // No credential, signature or host reaches the tape; it keeps each path as the client sent it.
    const text = readFileSync(tape, 'utf8');
    for (const secret of [ACCESS_KEY_ID, SECRET, SESSION_TOKEN, 'Signature=', standIn.host]) expect(text).not.toContain(secret);
    expect(loadTape(tape).exchanges.map(({ exchange }) => [exchange.upstream, exchange.request.path, exchange.response.stream?.format ?? 'json'])).toEqual(
      client.paths.map((path) => ['bedrock', path, path.endsWith('-stream') ? 'eventstream' : 'json']),
    );

    // Replay: the endpoint is gone and no credentials are set (modeltape run sets placeholders,
    // which win over whatever the environment has).
    const replayed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...offline, ...client.replayEnv } });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(outputOf(replayed.stdout)).toEqual(live);
    expect(replayed.stderr).toContain(`${client.paths.length} hits, 0 misses`);
    expect(replayed.stderr).toContain('0 upstream connections');

    // A changed prompt misses, with the nearest recording and its difference.
    const missed = await runMain(['run', '--tape', tape, '--', process.execPath, app], { env: { ...offline, PROMPT: 'Say goodbye' } });
    expect(missed.code).not.toBe(0);
    expect(missed.stderr).toContain(`Failed to replay POST /bedrock${client.paths[0]}`);
    expect(missed.stderr).toContain(client.difference);
    expect(`${missed.stdout}${missed.stderr}`).not.toContain(ACCESS_KEY_ID);
  });
}
