import { describe, expect, test } from 'vitest';
import { MAX_JSON_DEPTH, compileKeyRules, exchangeKey, type Exchange } from '../../recordings/internal.js';
import { ReplayEngine, ReplayMissError } from '../../lookup/internal.js';
import { admitRequest, decideAdmitted, decideRequest, refuseTooLarge, type DecisionContext, type RequestDecision } from './decide-request.js';
import type { ProxyRequest } from './proxy-request.js';
import { REPLAY_PLACEHOLDER_KEY } from './placeholder-key.js';
import { resolveProxyOptions, type ProxyMode, type ProxyOptions } from './proxy-options.js';
import { RequestKeys } from './request-keys.js';
import type { Route } from './router.js';

// No socket anywhere: a resolved option set, an engine built from exchanges in memory, and
// requests as plain values.
const TAPE = 'tapes/checkout.jsonl';
const PARIS = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Ship to Paris' }] };
const LYON = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Ship to Lyon' }] };

function post(body: unknown = PARIS, headers: Record<string, string> = {}): ProxyRequest {
  const bytes = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return {
    method: 'POST',
    url: '/openai/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: 'Bearer not-a-real-key', 'content-length': String(bytes.length), ...headers },
    body: bytes,
  };
}

function contextFor(mode: ProxyMode, recorded: readonly ProxyRequest[] = [], options: Partial<ProxyOptions> = {}): DecisionContext & { recorded: Exchange[] } {
  const resolved = resolveProxyOptions({ tape: TAPE, mode, env: {}, ...options });
  const keys = new RequestKeys(compileKeyRules());
  const chat = chatRoute(resolved.upstreams.get('openai')!);
  const exchanges = recorded.map((request, index): Exchange => {
    const captured = keys.capture(chat, request);
    return {
      key: exchangeKey('openai', captured, keys.rules),
      ordinal: 0,
      upstream: 'openai',
      source: 'live',
      request: captured,
      response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { answer: index } } },
    };
  });
  const engine =
    mode === 'passthrough'
      ? undefined
      : new ReplayEngine(
          { file: TAPE, keyRules: keys.rules },
          exchanges.map((exchange, index) => ({ exchange, line: index + 2 })),
        );
  return { options: resolved, engine, keys, recorded: exchanges };
}

function chatRoute(upstream: Route['upstream']): Route {
  return { upstream, path: '/v1/chat/completions', query: '', forwardPath: '/v1/chat/completions' };
}

function routeIn(context: DecisionContext): Route {
  return chatRoute(context.options.upstreams.get('openai')!);
}

const tooDeep = `{"model":"gpt-4o-mini","messages":${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}}`;

describe('decideRequest: hit', () => {
  test('replay answers a recorded request with its exchange, and takes it from the engine', () => {
    const context = contextFor('replay', [post()]);
    expect(decideRequest(context, post())).toMatchObject({
      kind: 'hit',
      route: routeIn(context),
      exchange: context.recorded[0],
      entry: { exchange: context.recorded[0] },
      key: context.recorded[0]!.key,
    });
    expect(context.engine!.unused()).toEqual([]);
  });

  test('auto answers a recorded request from the tape too, even carrying the placeholder key', () => {
    const context = contextFor('auto', [post()]);
    const decision = decideRequest(context, post(PARIS, { authorization: `Bearer ${REPLAY_PLACEHOLDER_KEY}` }));
    expect(decision).toMatchObject({
      kind: 'hit',
      route: routeIn(context),
      exchange: context.recorded[0],
      entry: { exchange: context.recorded[0] },
      key: context.recorded[0]!.key,
    });
  });
});

describe('decideRequest: forward', () => {
  test('passthrough forwards without recording, with no engine at all', () => {
    const context = contextFor('passthrough');
    expect(context.engine).toBeUndefined();
    expect(decideRequest(context, post())).toEqual({ kind: 'forward', route: routeIn(context), record: false });
  });

  test('record forwards and records, even what the tape already holds', () => {
    const context = contextFor('record', [post()]);
    expect(decideRequest(context, post())).toEqual({ kind: 'forward', route: routeIn(context), record: true });
    // Record mode never looks up: the recording is still unused.
    expect(context.engine!.unused()).toHaveLength(1);
  });

  test('auto forwards a miss and records it', () => {
    const context = contextFor('auto', [post()]);
    expect(decideRequest(context, post(LYON))).toEqual({ kind: 'forward', route: routeIn(context), record: true });
  });

  test('auto forwards a body too deep to key, unrecorded, saying why', () => {
    const context = contextFor('auto');
    expect(decideRequest(context, post(tooDeep))).toEqual({
      kind: 'forward',
      route: routeIn(context),
      record: false,
      unrecorded: expect.stringMatching(
        new RegExp(
          `^POST /v1/chat/completions \\(openai\\) was forwarded but not recorded: its request body nests deeper than ${MAX_JSON_DEPTH} levels \\(at \\.request\\.body\\.json\\.messages.*\\), so no tape can key it\\.$`,
        ),
      ),
    });
  });

  test('goes to the upstream the first segment names, at its base path, with the query', () => {
    const context = contextFor('passthrough', [], { upstreams: { local: 'http://127.0.0.1:8080/base/' } });
    const decision = decideRequest(context, { ...post(), url: '/local/v1/embeddings?api-version=2' });
    expect(decision).toEqual({
      kind: 'forward',
      route: {
        upstream: context.options.upstreams.get('local'),
        path: '/v1/embeddings',
        query: 'api-version=2',
        forwardPath: '/base/v1/embeddings?api-version=2',
      },
      record: false,
    });
  });
});

describe('decideRequest: miss', () => {
  test('replay explains a request never recorded: the nearest recording and the differing path', () => {
    const context = contextFor('replay', [post()]);
    const decision = decideRequest(context, post(LYON));
    const key = context.keys.keyOf(routeIn(context), post(LYON));
    const message =
      'Failed to replay POST /openai/v1/chat/completions: no recorded exchange matches.\n' +
      `  tape: ${TAPE} (1 exchange, nearest at ${TAPE}:2)\n` +
      `  key: ${key}\n` +
      '  at .messages[0].content: recorded "Ship to Paris" sent "Ship to Lyon"\n' +
      'Record it with --mode auto, or declare a normalizer if the differing field is volatile.';
    expect(decision).toEqual({
      kind: 'miss',
      route: routeIn(context),
      reason: 'unrecorded',
      message,
      response: { status: 400, type: 'modeltape_replay_miss', provider: 'openai' },
      missError: expect.any(ReplayMissError),
    });
    const { missError } = decision as Extract<RequestDecision, { kind: 'miss' }>;
    expect(missError).toMatchObject({
      message,
      reason: 'unrecorded',
      key,
      tape: TAPE,
      upstream: 'openai',
      nearest: { line: 2, key: context.recorded[0]!.key },
      totalDifferences: 1,
    });
  });

  test('replay explains a request called more often than recorded', () => {
    const context = contextFor('replay', [post()]);
    expect(decideRequest(context, post()).kind).toBe('hit');
    const decision = decideRequest(context, post());
    expect(decision).toMatchObject({ kind: 'miss', reason: 'exhausted', response: { status: 400, type: 'modeltape_replay_miss', provider: 'openai' } });
    expect((decision as { message: string }).message).toMatch(
      /^Failed to replay POST \/openai\/v1\/chat\/completions: this request was recorded once and this is call 2 \(ordinal 1\)\.\n/,
    );
    expect((decision as { missError: ReplayMissError }).missError.reason).toBe('exhausted');
  });

  test("with onMiss 'nearest', a miss answers as the nearest recording did", () => {
    const context = contextFor('replay', [post()], { onMiss: 'nearest' });
    const decision = decideRequest(context, post(LYON));
    expect(decision).toMatchObject({ kind: 'miss', reason: 'unrecorded', response: { nearest: context.recorded[0] } });
  });

  test("with onMiss 'nearest' and nothing near, a miss is still an error", () => {
    const context = contextFor('replay', [], { onMiss: 'nearest' });
    expect(decideRequest(context, post())).toMatchObject({
      kind: 'miss',
      reason: 'unrecorded',
      response: { status: 400, type: 'modeltape_replay_miss', provider: 'openai' },
    });
  });

  test('record refuses to send a request carrying the placeholder key, naming the variable to set', () => {
    const context = contextFor('record');
    expect(decideRequest(context, post(PARIS, { authorization: `Bearer ${REPLAY_PLACEHOLDER_KEY}` }))).toEqual({
      kind: 'miss',
      route: routeIn(context),
      reason: 'no_key',
      message:
        `POST /v1/chat/completions (openai) is not on the tape ${TAPE} and needs recording, but no real key is set: the request carries modeltape's placeholder key, so nothing was sent.\n` +
        'Set OPENAI_API_KEY to a real key and run again in record mode (locally, not in CI), or fix the request so that it matches a recording.',
      response: { status: 401, type: 'modeltape_no_key', provider: 'openai' },
    });
  });

  test('auto refuses to record a miss carrying the placeholder key', () => {
    const context = contextFor('auto', [post()]);
    expect(decideRequest(context, post(LYON, { 'x-api-key': REPLAY_PLACEHOLDER_KEY }))).toMatchObject({
      kind: 'miss',
      reason: 'no_key',
      response: { status: 401, type: 'modeltape_no_key' },
    });
  });

  test('replay answers a body too deep to key as a miss that says it can never be on a tape', () => {
    const context = contextFor('replay');
    const decision = decideRequest(context, post(tooDeep));
    expect(decision).toMatchObject({
      kind: 'miss',
      route: routeIn(context),
      reason: 'too_deep',
      response: { status: 400, type: 'modeltape_replay_miss', provider: 'openai' },
    });
    expect((decision as { message: string }).message).toMatch(
      new RegExp(
        `^POST /v1/chat/completions \\(openai\\) cannot be on the tape ${TAPE}: its request body nests deeper than ${MAX_JSON_DEPTH} levels \\(at \\.request\\.body\\.json\\.messages.*\\), and modeltape never records what it cannot key\\.`,
      ),
    );
    expect(decision).not.toHaveProperty('missError');
  });
});

describe('decideRequest: refuse', () => {
  test('a path that would leave its upstream base, its key-like query redacted in the message', () => {
    const context = contextFor('record');
    expect(decideRequest(context, { ...post(), url: '/openai/v1/../../admin?key=1' })).toEqual({
      kind: 'refuse',
      reason: 'invalid_path',
      message:
        'Refused POST /openai/v1/../../admin?key=REDACTED: the path holds the dot segment "..", which could reach past https://api.openai.com (the base of upstream "openai") once the upstream resolves it. ' +
        "Send the path as the provider's API names it, without dot segments or backslashes.",
      response: { status: 400, type: 'modeltape_invalid_path', provider: 'openai' },
    });
  });

  test('an upstream nobody configured, listing the configured ones', () => {
    const context = contextFor('replay');
    expect(decideRequest(context, { ...post(), url: '/acme/v1/chat/completions' })).toEqual({
      kind: 'refuse',
      reason: 'unknown_upstream',
      message:
        'No upstream named "acme". Send requests to /<upstream>/<path>; configured upstreams: openai (https://api.openai.com), anthropic (https://api.anthropic.com), gemini (https://generativelanguage.googleapis.com), ollama (http://127.0.0.1:11434), azure (no endpoint set), bedrock (https://bedrock-runtime.us-east-1.amazonaws.com), vertex (https://aiplatform.googleapis.com), openrouter (https://openrouter.ai/api), groq (https://api.groq.com), together (https://api.together.xyz), fireworks (https://api.fireworks.ai/inference), deepseek (https://api.deepseek.com), mistral (https://api.mistral.ai), xai (https://api.x.ai), vllm (http://127.0.0.1:8000), lmstudio (http://127.0.0.1:1234). ' +
        'Declare it with --upstream acme=URL (an MCP server: --upstream acme=mcp+URL), or under "upstreams" in modeltape.config.json.',
      response: { status: 404, type: 'modeltape_unknown_upstream', provider: 'openai' },
    });
  });

  test('a body over the limit, declared or not, before anything is keyed or looked up', () => {
    const context = contextFor('replay', [post()], { limits: { requestBodyBytes: 16 } });
    const expected = {
      kind: 'refuse',
      reason: 'request_too_large',
      message:
        'Refused POST /v1/chat/completions (openai): its body is over the 16 bytes limit of a request, so it was not read and nothing was sent upstream.\n' +
        'Raise the limit with --max-request-body BYTES (limits.requestBodyBytes in the config file, or the limits.requestBodyBytes option).',
      response: { status: 413, type: 'modeltape_request_too_large', provider: 'openai' },
    };
    const { 'content-length': _declared, ...undeclared } = post().headers;
    expect(decideRequest(context, post())).toEqual(expected);
    expect(decideRequest(context, { ...post(), headers: undeclared })).toEqual(expected);
    expect(refuseTooLarge(context, routeIn(context), 'POST')).toEqual(expected);
    expect(context.engine!.unused()).toHaveLength(1);
  });
});

describe('the two halves the HTTP proxy calls', () => {
  test('admitRequest routes on the head alone, and decideAdmitted decides as decideRequest does', () => {
    const { body: _body, ...head } = post();
    const context = contextFor('replay', [post()]);
    expect(admitRequest(context, head)).toEqual({ kind: 'admit', route: routeIn(context) });
    expect(decideAdmitted(context, routeIn(context), post())).toMatchObject({
      kind: 'hit',
      route: routeIn(context),
      exchange: context.recorded[0],
      entry: { exchange: context.recorded[0] },
      key: context.recorded[0]!.key,
    });
  });

  test('admitRequest refuses a declared length over the limit before the body is read', () => {
    const context = contextFor('auto', [], { limits: { requestBodyBytes: 16 } });
    expect(admitRequest(context, { method: 'POST', url: '/anthropic/v1/messages', headers: { 'content-length': '17' } })).toMatchObject({
      kind: 'refuse',
      reason: 'request_too_large',
      response: { status: 413, provider: 'anthropic' },
    });
  });

  test('an error it did not expect is thrown, not decided', () => {
    const context = contextFor('replay');
    class BrokenKeys extends RequestKeys {
      override keyOf(): string {
        throw new Error('a bug in keying');
      }
    }
    const broken: DecisionContext = { ...context, keys: new BrokenKeys(context.keys.rules) };
    expect(() => decideAdmitted(broken, routeIn(context), post())).toThrow('a bug in keying');
  });
});

describe('replay mode', () => {
  test('never decides to forward, whatever the request', () => {
    const context = contextFor('replay', [post()], { upstreams: { openai: 'http://127.0.0.1:9' } });
    const requests = [
      post(),
      post(),
      post(LYON),
      post(tooDeep),
      post(PARIS, { authorization: `Bearer ${REPLAY_PLACEHOLDER_KEY}` }),
      { ...post(), url: '/openai/v1/%2e%2e/x' },
      { ...post(), url: '/nope' },
    ];
    const kinds = requests.map((request) => decideRequest(context, request).kind);
    expect(kinds).toEqual(['hit', 'miss', 'miss', 'miss', 'miss', 'refuse', 'refuse']);
  });
});

describe('an MCP upstream', () => {
  const upstreams = { docs: 'mcp+http://127.0.0.1:3000/mcp' };
  const call = (id: number | string, city = 'Paris'): ProxyRequest => {
    const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_weather', arguments: { city } } }));
    return { method: 'POST', url: '/docs', headers: { 'content-type': 'application/json', 'content-length': String(body.length) }, body };
  };

  test('is routed to its endpoint as given, without a slash added', () => {
    const context = contextFor('record', [], { upstreams });
    const decision = decideRequest(context, call(1));
    expect(decision).toMatchObject({
      kind: 'forward',
      record: true,
      route: { path: '/', forwardPath: '/mcp', upstream: { provider: 'mcp', baseUrl: 'http://127.0.0.1:3000/mcp' } },
    });
    expect(decideRequest(context, { ...call(1), url: '/docs/' })).toMatchObject({ route: { forwardPath: '/mcp' } });
  });

  test("answers a client's GET for a server stream itself (405) outside passthrough, and forwards it in passthrough", () => {
    const get: ProxyRequest = { method: 'GET', url: '/docs', headers: { accept: 'text/event-stream' }, body: Buffer.alloc(0) };
    for (const mode of ['replay', 'record', 'auto'] as const) {
      expect(decideRequest(contextFor(mode, [], { upstreams }), get)).toMatchObject({
        kind: 'refuse',
        reason: 'no_server_stream',
        response: { status: 405, provider: 'mcp' },
      });
    }
    expect(decideRequest(contextFor('passthrough', [], { upstreams }), get)).toMatchObject({ kind: 'forward', record: false });
  });

  test("carries the JSON-RPC request's id with a hit and a miss, whatever id the recording had", () => {
    const context = contextFor('replay', [], { upstreams });
    const route = admitRequest(context, call(0));
    if (route.kind !== 'admit') throw new Error('not admitted');
    const recorded = context.keys.capture(route.route, call(0));
    const engine = new ReplayEngine({ file: TAPE, keyRules: context.keys.rules }, [
      {
        exchange: {
          key: exchangeKey('docs', recorded, context.keys.rules),
          ordinal: 0,
          upstream: 'docs',
          source: 'live',
          request: recorded,
          response: { status: 200, headers: {}, body: { json: { jsonrpc: '2.0', id: 0, result: {} } } },
        },
        line: 2,
      },
    ]);
    const replaying = { ...context, engine };
    expect(decideRequest(replaying, call('call-9'))).toMatchObject({ kind: 'hit', rpcId: 'call-9' });
    const miss = decideRequest(replaying, call(4, 'Lyon'));
    expect(miss).toMatchObject({ kind: 'miss', rpcId: 4, response: { status: 400, provider: 'mcp', rpcId: 4 } });
    expect(miss.kind === 'miss' && miss.message).toMatch(
      /^Failed to replay tools\/call get_weather \(POST \/docs\).*\n.*nearest at tapes\/checkout\.jsonl:2: tools\/call get_weather\)/,
    );
  });
});
