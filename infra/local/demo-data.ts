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

/** A dozen issues over the last months: most sent, some drafts, some private. */
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
    const status = id >= 11 ? 'draft' : id === 10 ? 'sending' : 'sent';
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
