import { describe, expect, it } from 'vitest';
import {
  DependencyError,
  describeError,
  isNewsletterError,
  newsletterError,
  unavailable,
} from '../../../shared/domain/errors.ts';

describe('error values', () => {
  it('only values made as errors are errors; a copy of their fields is not', () => {
    const error = newsletterError('invalid_parameter', 'name must be a string');
    expect(isNewsletterError(error)).toBe(true);
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      code: 'invalid_parameter',
      message: 'name must be a string',
      status: 400,
    });
    expect(isNewsletterError({ ...error })).toBe(false);
    expect(isNewsletterError({ code: 'invalid_parameter', message: 'x', status: 400 })).toBe(false);
    for (const value of [null, undefined, 'invalid_parameter', 400]) {
      expect(isNewsletterError(value)).toBe(false);
    }
  });

  it('a dependency failure answers 503 with a message that names nothing internal', () => {
    expect(unavailable()).toEqual({
      code: 'unavailable',
      message: 'The service is temporarily unavailable; please try again shortly.',
      status: 503,
    });
  });
});

describe('describeError', () => {
  it('names the error and each cause', () => {
    const cause = new TypeError('fetch failed');
    expect(describeError(new DependencyError('dynamodb', { cause }))).toBe(
      'DependencyError: dynamodb unavailable <- TypeError: fetch failed',
    );
    expect(describeError(new Error('outer', { cause: 'a string cause' }))).toBe(
      'Error: outer <- a string cause',
    );
    expect(describeError('thrown text')).toBe('thrown text');
    expect(describeError(42)).toBe('42');
    expect(describeError(new Error('alone'))).toBe('Error: alone');
  });

  it('stops after four errors, also for a cycle of causes', () => {
    let error = new Error('e0');
    for (let i = 1; i <= 5; i++) error = new Error(`e${i}`, { cause: error });
    expect(describeError(error)).toBe('Error: e5 <- Error: e4 <- Error: e3 <- Error: e2');
    const cyclic = new Error('loop');
    cyclic.cause = cyclic;
    expect(describeError(cyclic)).toBe('Error: loop <- Error: loop <- Error: loop <- Error: loop');
  });
});
