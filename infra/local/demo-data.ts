import type { NewsletterIssueRecord } from '../../shared/domain/newsletter-issue.ts';
import type { SettingsInput } from '../../shared/domain/settings-schema.ts';

/**
 * Settings `npm start` seeds when there are none: a public list, a pre-assigned one, a private
 * one, and profile fields. `required_public_fields` is empty: add "name" to try the rule.
 */
export const DEMO_SETTINGS: SettingsInput = {
  opt_in: 'double',
  required_public_fields: [],
  lists: [
    { id: 1, name: 'Weekly digest' },
    { id: 2, name: 'Product updates', preassigned: true },
    { id: 3, name: 'Beta testers', private: true },
    { id: 4, name: 'Events' },
  ],
  profile_fields: [
    { id: 'city', name: 'City' },
    { id: 'company', name: 'Company' },
  ],
  sender: { address: 'news@example.com', name: 'Example Newsletter' },
  admin_address: 'admin@example.com',
  resend_cooldown_minutes: 10,
};

/**
 * A dozen issues over the last months: most sent, some drafts, some private. Issue 1 is a draft
 * with content, ready for `npx newsletter --local newsletters send 1`.
 */
export function demoNewsletters(now: Date): NewsletterIssueRecord[] {
  const topics = [
    'Welcome to the newsletter',
    'Spring product news',
    'Behind the scenes: our team',
    'Customer story: ACME',
    'Investor update Q2',
    'Summer events',
    'Tips and tricks',
    'Autumn release notes',
    'Partner programme (internal)',
    'Year in review',
    'Holiday schedule',
    'What is coming next year',
  ];
  return topics.map((subject, index) => {
    const id = index + 1;
    const created = new Date(now.getTime() - (topics.length - index) * 14 * 86_400_000);
    const status = id >= 11 || id === 1 ? 'draft' : 'sent';
    return {
      id,
      subject,
      status,
      created: created.toISOString(),
      sent_at: status === 'sent' ? new Date(created.getTime() + 3_600_000).toISOString() : null,
      private: id === 5 || id === 9,
      ...(status === 'sent' ? { url: `https://news.example.com/issues/${id}` } : {}),
    };
  });
}

/** The content of demo issue 1: a styled HTML part with the original's tags. */
export const DEMO_CONTENT = {
  lists: [1, 2],
  html: `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Welcome to the newsletter</title>
<style>
  body { font-family: Helvetica, Arial, sans-serif; background: #f4f4f5; }
  .card { max-width: 560px; margin: 0 auto; padding: 24px; background: #ffffff; }
  a { color: #1d4ed8; }
</style>
</head>
<body>
<div class="card">
<h1>Hello {name}!</h1>
<p>Thank you for reading. This issue went to {email}.</p>
<p>From {profile_city}? We hold a meetup near you soon.</p>
<p><a href="{unsubscription_url}">Unsubscribe</a> with one click, any time.</p>
</div>
</body>
</html>
`,
} as const;

/** Confirmed subscribers on the demo lists that `npm start` seeds when the table is empty. */
export const DEMO_SUBSCRIBERS: readonly {
  readonly email: string;
  readonly name: string;
  readonly lists: readonly number[];
  readonly profile: Readonly<Record<string, string>>;
}[] = [
  { email: 'grace@example.org', name: 'Grace', lists: [1], profile: { city: 'Arlington' } },
  { email: 'alan@example.org', name: 'Alan', lists: [1, 2], profile: { city: 'Manchester' } },
  { email: 'katherine@example.org', name: 'Katherine', lists: [2], profile: {} },
  { email: 'edsger@example.org', name: 'Edsger', lists: [1, 4], profile: { city: 'Nuenen' } },
  { email: 'barbara@example.org', name: '', lists: [4], profile: {} },
];
