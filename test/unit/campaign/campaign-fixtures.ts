import * as v from 'valibot';
import type { CampaignContentInput } from '../../../shared/domain/campaign/campaign-content.ts';
import { type Settings, SettingsSchema } from '../../../shared/domain/settings-schema.ts';

/** Settings with two lists and two profile fields, one of them with a digit id. */
export function campaignSettings(): Settings {
  return v.parse(SettingsSchema, {
    lists: [
      { id: 1, name: 'News' },
      { id: 2, name: 'Tips & Tricks' },
    ],
    profile_fields: [
      { id: 'city', name: 'City' },
      { id: '1', name: 'Member number' },
    ],
    sender: { address: 'news@example.com', name: 'Example Newsletter' },
  });
}

/** A newsletter as mail HTML is written: a document, a style block, layout tables. */
export const NEWSLETTER_HTML = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Autumn news for {name}</title>
<style>
  body { margin: 0; } a{color:#1d4ed8} .x{display:none}
  @media (max-width: 600px) { .column { width: 100% !important; } }
</style>
<!--[if mso]><style>table {border-collapse: collapse;}</style><![endif]-->
</head>
<body>
<table role="presentation" width="100%"><tr><td>
<h1>Hello {name} {surname}!</h1>
<p>We write to {email} in {profile_city}, member {profile_1}.</p>
<p><img src="https://news.example.com/logo.png" alt="Logo for {name}" title='{name}'></p>
</td></tr></table>
<p><a href="{unsubscription_url}" title="Leave, {name}">Unsubscribe</a></p>
</body>
</html>
`;

/** Valid content to vary in a test. */
export function contentInput(overrides: Partial<CampaignContentInput> = {}): CampaignContentInput {
  return {
    subject: 'Autumn news',
    html: NEWSLETTER_HTML,
    lists: [1],
    ...overrides,
  };
}

/** An unsubscribe link as the engine builds it. */
export const UNSUBSCRIBE_URL =
  'https://api.example.com/api/newsletter/v1/subscription/unsubscribe?token=7.42.c2VjcmV0LXRva2VuLW9mLTQzLWNoYXJhY3RlcnMtMTIzNA';

/** A web version link as issue 22 builds it. */
export const WEB_VERSION_URL = 'https://api.example.com/api/newsletter/v1/newsletters/7/view';
