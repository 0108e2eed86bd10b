/**
 * The feedback operation when it cannot record: a subscriber whose every write loses its race.
 * A fake store keeps it cheap and the backoff runs on fake timers; the integration suite
 * (test/integration/feedback.test.ts) covers what is stored.
 */
import { afterEach, expect, it, vi } from 'vitest';
import type { Store } from '../../../shared/adapters/store/store-port.ts';
import { newSubscriberRecord } from '../../../shared/domain/decide-subscribe.ts';
import { isNewsletterError } from '../../../shared/domain/errors.ts';
import { recordFeedback } from '../../../shared/operations/record-feedback.ts';
import {
  RecordingLogger,
  RecordingMetrics,
  TestClock,
  testSettings,
} from '../../support/fixtures.ts';

afterEach(() => {
  vi.useRealTimers();
});

it('[feedback.malformed] feedback that cannot be recorded (every write lost its race) is the 503 value, so the invocation fails and Lambda retries it', async () => {
  vi.useFakeTimers();
  const clock = new TestClock();
  const settings = testSettings();
  const stored = {
    ...newSubscriberRecord('ada@example.com', {}, 'C', settings, clock.now()),
    id: 7,
    version: 3,
  };
  const campaigns = { markFeedback: vi.fn(async () => undefined) };
  // Only what the feedback operation calls; every other method of the port is absent.
  const store = {
    getSubscriber: async () => stored,
    replaceSubscriber: async () => false,
  } as Partial<Store> as Store;
  const metrics = new RecordingMetrics();

  const recording = recordFeedback(
    {
      store,
      settings: async () => settings,
      now: clock.now,
      log: new RecordingLogger(),
      metrics,
      campaigns,
    },
    {
      kind: 'hard-bounce',
      mailId: 'm1',
      recipients: ['ada@example.com'],
      detail: 'test',
      newsletterId: 4,
    },
  );
  await vi.runAllTimersAsync();
  const outcome = await recording;

  expect(isNewsletterError(outcome) && outcome).toMatchObject({
    code: 'unavailable',
    status: 503,
  });
  expect(metrics.counts).toEqual({});
  expect(campaigns.markFeedback).not.toHaveBeenCalled();
});
