import type { RouteEntry } from './route-entry.ts';

/** The `openapi` route (route-table.ts). */
export const route = {
  name: 'openapi',
  methods: ['GET'],
  path: '/openapi.json',
  key: 'none',
  cors: true,
  formPage: false,
  summary: 'This API description (OpenAPI 3.1)',
  access: { table: [], queries: [], sendsMail: false, settings: false },
} as const satisfies RouteEntry;
