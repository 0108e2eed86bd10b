/**
 * What an operator sees of the deployed functions: structured log lines that a request id
 * from a 500 body finds, and CloudWatch metrics in EMF. Lines are read from the functions'
 * output as the local cloud captured it (what CloudWatch Logs would receive).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshAddresses } from '../support/fixtures.ts';
import { type LocalService, startLocalService } from './support/local-service.ts';

let service: LocalService;

beforeAll(async () => {
  service = await startLocalService();
});

afterAll(async () => {
  await service?.stop();
});

afterEach(() => {
  service.resetSettings();
});

/** A fresh address per call, so tests never see each other's subscribers. */
const address = freshAddresses();

type Line = Record<string, unknown>;

/** The lines the functions wrote while `run` ran (requests here run one at a time). */
async function linesDuring(run: () => Promise<unknown>): Promise<Line[]> {
  // Work started before (the seed's events on their way to the bus) ends first.
  await service.stack.settled();
  const from = service.logLines.length;
  await run();
  return service.logLines.slice(from).map((line) => JSON.parse(line) as Line);
}

/** EMF documents among lines: metric name → value. */
function metricsIn(lines: readonly Line[]): Record<string, unknown>[] {
  return lines
    .filter((line) => typeof line._aws === 'object')
    .map((line) => {
      const aws = line._aws as {
        CloudWatchMetrics: { Namespace: string; Metrics: { Name: string; Unit: string }[] }[];
      };
      const [directive] = aws.CloudWatchMetrics;
      return {
        namespace: directive?.Namespace,
        ...Object.fromEntries((directive?.Metrics ?? []).map((m) => [m.Name, line[m.Name]])),
        units: [...new Set(directive?.Metrics.map((m) => m.Unit))],
      };
    });
}

describe('[ops.log-lines] log lines', () => {
  it('carry the invocation id, the cold-start flag and the request id a 500 body shows', async () => {
    service.stack.parameters.put('/newsletter/settings', JSON.stringify({ lists: 'broken' }));
    let body: { data: { request_id?: string } } | undefined;
    const lines = await linesDuring(async () => {
      const response = await service.post('/subscribe', { email: address('bug') });
      expect(response.status).toBe(500);
      body = response.json as typeof body;
    });
    const requestId = body?.data.request_id;
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const logged = lines.filter((line) => typeof line.message === 'string');
    expect(logged.length).toBeGreaterThanOrEqual(2);
    for (const line of logged) {
      expect(line.request_id).toBe(requestId);
      expect(line.function_request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof line.cold_start).toBe('boolean');
      expect(line.service).toBe('newsletter');
    }
    // The id finds the request line and the cause, which the caller never saw.
    const messages = logged.map((line) => line.message);
    expect(messages).toContain('request');
    const cause = logged.find((line) => line.level === 'ERROR');
    expect(JSON.stringify(cause)).toContain('lists');
  });

  it('mark the first invocation of an environment as a cold start and later ones not', async () => {
    const requests = await linesDuring(async () => {
      for (let i = 0; i < 3; i += 1) await service.post('/newsletters', {});
    });
    const flags = requests
      .filter((line) => line.message === 'request')
      .map((line) => line.cold_start);
    expect(flags).toHaveLength(3);
    // One environment serves sequential calls: at most its first was cold.
    expect(flags.slice(1)).toEqual([false, false]);
  });
});

describe('[ops.metrics] metrics in EMF', () => {
  it('count a subscription, a confirmation and an unsubscription in the Newsletter namespace', async () => {
    const email = address('metrics');
    const subscribed = await linesDuring(() => service.post('/subscribe', { email }));
    expect(metricsIn(subscribed)).toEqual([
      { namespace: 'Newsletter', Subscriptions: 1, units: ['Count'] },
    ]);
    const [mail] = await service.mails(email);
    const confirm = /\/subscription\/confirm\?token=[\w-]+/.exec(mail?.body.text ?? '')?.[0];
    if (!confirm) throw new Error('no activation link');
    const token = new URL(`${service.apiRoot}${confirm}`).searchParams.get('token') ?? '';
    const confirmed = await linesDuring(() =>
      service.post('/subscription/confirm', { token }, { type: 'form' }),
    );
    expect(metricsIn(confirmed)).toEqual([
      { namespace: 'Newsletter', Confirmations: 1, units: ['Count'] },
    ]);
    const unsubscribed = await linesDuring(() =>
      service.post('/unsubscribe', { email, api_key: service.apiKey }),
    );
    expect(metricsIn(unsubscribed)).toEqual([
      { namespace: 'Newsletter', Unsubscriptions: 1, units: ['Count'] },
    ]);
  });

  it('[params.unknown-profile-field] an ignored profile field is a warning naming it and an UnknownProfileFields count', async () => {
    const lines = await linesDuring(async () => {
      const response = await service.post('/subscribe', {
        email: address('fields'),
        profile_2: 'a',
        profile_3: 'b',
        'profile_not-a-field-name@example.com': 'c',
      });
      expect(response.status).toBe(200);
    });
    const warning = lines.find((line) => line.message === 'unknown_profile_fields_ignored');
    expect(warning).toMatchObject({ level: 'WARN', fields: 'profile_2,profile_3', other_names: 1 });
    // Names only: neither the values nor a name that is not shaped like a field id.
    expect(JSON.stringify(lines)).not.toContain('not-a-field-name');
    expect(metricsIn(lines).map((metrics) => metrics.UnknownProfileFields ?? 0)).toContain(3);
  });

  it('count a rate-limited call and a failed mail', async () => {
    service.setSettings({ public_rate_limit: { max_requests: 1, window_minutes: 10 } });
    const limited = await linesDuring(async () => {
      await service.post('/subscribe', { email: address('limit') });
      const second = await service.post('/subscribe', { email: address('limit') });
      expect(second.status).toBe(429);
    });
    expect(metricsIn(limited).map((metrics) => metrics.RateLimited ?? 0)).toContain(1);

    service.resetSettings();
    await service.stopSes();
    try {
      // The answer does not wait for the mailer; its failure shows in the mailer's metrics.
      const from = service.logLines.length;
      await service.post('/subscribe', { email: address('down') }, { settle: false });
      const failed = () =>
        metricsIn(service.logLines.slice(from).map((line) => JSON.parse(line) as Line));
      while (!failed().some((metrics) => metrics.MailFailures === 1))
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(failed().filter((metrics) => 'MailFailures' in metrics)[0]).toEqual({
        namespace: 'Newsletter',
        MailFailures: 1,
        units: ['Count'],
      });
    } finally {
      await service.restartSes();
    }
  });

  it('are not published by a call that counted nothing', async () => {
    const listed = await linesDuring(() =>
      service.post('/subscribers', { api_key: service.apiKey }),
    );
    expect(listed.length).toBeGreaterThan(0);
    expect(metricsIn(listed)).toEqual([]);
  });
});
