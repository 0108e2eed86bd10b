import type { RouteEntry } from './route-entry.ts';

/** The `newsletter-view` route (route-table.ts). */
export const route = {
  name: 'newsletter-view',
  methods: ['GET'],
  path: '/newsletters/{id}/view',
  key: 'none',
  // Public as the listing that links to it; a page of another site may fetch and show it.
  cors: true,
  formPage: false,
  summary: 'The web version of a sent, public newsletter, as an HTML page without personal data',
  access: {
    // The issue (its status and privacy), then its content: two reads, nothing about anyone;
    // the settings for what an empty tag reads as (campaign.tag_fallbacks).
    table: ['dynamodb:GetItem'],
    queries: [],
    sendsMail: false,
    settings: true,
  },
} as const satisfies RouteEntry;
