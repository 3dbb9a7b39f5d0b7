/**
 * Internal barrel: what other parts import. It is the public entry (index.ts) and what only the
 * other parts use.
 * fake-provider/: a deterministic model provider in the OpenAI Chat Completions, OpenAI
 * Responses and Anthropic Messages wire formats (and the others its page lists), served in process
 * (`fake.fetch`) or over HTTP (`fake.listen()`, with OpenAI Realtime over WebSocket), scripted or
 * unscripted, never mistaken for the real thing.
 */
export * from './index.js';
