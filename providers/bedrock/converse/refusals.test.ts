import { describe, expect, test } from 'vitest';
import { ACCEPTED_CONVERSE_BODY, CONVERSE_REFUSALS } from '../../../test/support/bedrock-refusals.js';
import { refuseConverseRequest } from './refusals.js';

// The table is shared with the FakeProvider's test, which sends each body through the AWS SDK.
describe('refuseConverseRequest', () => {
  test('accepts a well-formed tool loop with every field the API has', () => {
    expect(refuseConverseRequest(ACCEPTED_CONVERSE_BODY)).toBeUndefined();
  });

  test.each(CONVERSE_REFUSALS.map((refusal) => [refusal.name, refusal] as const))('refuses %s with a 400 ValidationException', (_name, { body, message }) => {
    expect(refuseConverseRequest(body)).toEqual({ status: 400, type: 'ValidationException', message });
  });

  test('checks every case listed', () => {
    expect(CONVERSE_REFUSALS).toHaveLength(16);
  });
});
