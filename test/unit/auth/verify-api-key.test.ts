import { describe, expect, it } from 'vitest';
import { keysMatch, verifyApiKey } from '../../../functions/http/verify-api-key.ts';
import { DependencyError } from '../../../shared/domain/errors.ts';
import { RecordingLogger } from '../../support/fixtures.ts';

const KEY = 'k3y-0123456789abcdef';
const load = async () => KEY;

describe('verifyApiKey', () => {
  it('trusts the right key and refuses a wrong one', async () => {
    const log = new RecordingLogger();
    expect(await verifyApiKey(KEY, 'required', load, log)).toEqual({ trusted: true });
    expect(await verifyApiKey(`${KEY}x`, 'required', load, log)).toMatchObject({
      code: 'forbidden',
      status: 403,
    });
  });

  it('a missing key is refused where required and public where optional', async () => {
    const log = new RecordingLogger();
    expect(await verifyApiKey(undefined, 'required', load, log)).toMatchObject({ status: 403 });
    expect(await verifyApiKey('', 'optional', load, log)).toEqual({ trusted: false });
  });

  it('a present but wrong key is refused even where the key is optional', async () => {
    expect(await verifyApiKey('wrong', 'optional', load, new RecordingLogger())).toMatchObject({
      status: 403,
    });
    expect(await verifyApiKey(['x'], 'optional', load, new RecordingLogger())).toMatchObject({
      status: 403,
    });
  });

  it('fails closed: 403 without a configured key, 503 when the store is unreachable, cause logged', async () => {
    const log = new RecordingLogger();
    expect(await verifyApiKey('anything', 'required', async () => undefined, log)).toMatchObject({
      status: 403,
    });
    const down = async () => {
      throw new DependencyError('ssm');
    };
    expect(await verifyApiKey('anything', 'optional', down, log)).toMatchObject({
      code: 'unavailable',
      status: 503,
    });
    expect(log.lines.map((l) => l.event)).toEqual([
      'api_key_not_configured',
      'api_key_unavailable',
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('anything');
  });

  it('keysMatch compares whole values of any length', () => {
    expect(keysMatch('abc', 'abc')).toBe(true);
    expect(keysMatch('abc', 'abd')).toBe(false);
    expect(keysMatch('', 'abc')).toBe(false);
  });
});
