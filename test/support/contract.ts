/**
 * The endpoints as the contract states them, written out from the interface document
 * (`../shared/seed/`, parts 4 and 5) and the decisions (`../shared/spec/decisions.md`, part 4:
 * the activation and unsubscribe links; our own docs: the API description), never derived
 * from the code. Tests compare what the service, the template and the API description do with
 * this table, so a route table that drifts from the contract fails them.
 */

/** How a caller's key is treated (interface part 5). */
export type ContractKey = 'required' | 'optional' | 'none';

/** One endpoint of `{api_root}`. */
export interface ContractEndpoint {
  /** The name of the function form, where the interface gives one. */
  readonly operation?: string;
  readonly path: string;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly key: ContractKey;
  /**
   * JSON answers, an HTML page (the links in mails: errors are pages too), or a public HTML
   * document whose errors are JSON (the web version of an issue).
   */
  readonly answers: 'json' | 'page' | 'document';
  /** Decisions part 1: the public routes answer CORS preflights; keyed routes never do. */
  readonly cors: boolean;
}

/** Every endpoint below `{api_root}`. */
export const CONTRACT_ENDPOINTS: readonly ContractEndpoint[] = [
  // Interface 4.1: "POST /subscribe", key optional (part 5 rule 4); public, so CORS.
  {
    operation: 'subscribe',
    path: '/subscribe',
    methods: ['POST'],
    key: 'optional',
    answers: 'json',
    cors: true,
  },
  // Interface 4.2: "POST /unsubscribe", api_key required.
  {
    operation: 'unsubscribe',
    path: '/unsubscribe',
    methods: ['POST'],
    key: 'required',
    answers: 'json',
    cors: false,
  },
  // Interface 4.3: "POST /subscribers/add", api_key required.
  {
    operation: 'add_subscriber',
    path: '/subscribers/add',
    methods: ['POST'],
    key: 'required',
    answers: 'json',
    cors: false,
  },
  // Interface 4.4: "POST /subscribers/delete", api_key required.
  {
    operation: 'delete_subscriber',
    path: '/subscribers/delete',
    methods: ['POST'],
    key: 'required',
    answers: 'json',
    cors: false,
  },
  // Interface 4.5: "POST /subscribers", api_key required.
  {
    operation: 'subscribers',
    path: '/subscribers',
    methods: ['POST'],
    key: 'required',
    answers: 'json',
    cors: false,
  },
  // Interface 4.6: "GET /newsletters", called without a key; decisions part 5: a key widens it.
  {
    operation: 'newsletters',
    path: '/newsletters',
    methods: ['GET'],
    key: 'optional',
    answers: 'json',
    cors: true,
  },
  // Decisions part 4: the activation link, GET shows a button, POST confirms.
  {
    path: '/subscription/confirm',
    methods: ['GET', 'POST'],
    key: 'none',
    answers: 'page',
    cors: false,
  },
  // Decisions part 4: the unsubscribe link, GET shows a button, POST (or one-click) unsubscribes.
  {
    path: '/subscription/unsubscribe',
    methods: ['GET', 'POST'],
    key: 'none',
    answers: 'page',
    cors: false,
  },
  // Decisions part 10: the web version of a sent, public issue, keyless; public as the listing.
  {
    path: '/newsletters/{id}/view',
    methods: ['GET'],
    key: 'none',
    answers: 'document',
    cors: true,
  },
  // docs/api.md: the API description, public (decisions part 1: CORS).
  { path: '/openapi.json', methods: ['GET'], key: 'none', answers: 'json', cors: true },
];

/**
 * The endpoint a request reaches, as the contract says: the path below `{api_root}` exactly,
 * with a trailing slash reaching the same endpoint (decisions part 1), and one of its methods.
 */
export function contractEndpoint(
  pathBelowRoot: string,
  method: string,
): { endpoint?: ContractEndpoint; pathKnown: boolean } {
  const path = pathBelowRoot.length > 1 ? pathBelowRoot.replace(/\/+$/, '') : pathBelowRoot;
  // A `{name}` segment stands for any one non-empty segment; a literal path wins over it.
  const matches = (template: string): boolean =>
    new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`,
    ).test(path);
  const endpoint =
    CONTRACT_ENDPOINTS.find((each) => each.path === path) ??
    CONTRACT_ENDPOINTS.find((each) => matches(each.path));
  if (!endpoint) return { pathKnown: false };
  return endpoint.methods.includes(method as 'GET' | 'POST')
    ? { endpoint, pathKnown: true }
    : { pathKnown: true };
}

/** What a v2 method needs of the client key (decisions part 11). */
export type ContractClientKey = 'read' | 'write' | 'optional' | 'optional-write';

/** One endpoint of `{stage}/newsletter/v2`. */
export interface V2ContractEndpoint {
  readonly path: string;
  readonly methods: Readonly<Partial<Record<'GET' | 'POST' | 'PUT' | 'DELETE', ContractClientKey>>>;
  /** Public routes answer CORS; keyed ones never (decisions part 1). */
  readonly cors: boolean;
}

/**
 * The endpoints of API v2 as `../shared/spec/original-v2.md` ("Routes") lists them, with the
 * permissions decisions part 11 enforces: reads need `read`, writes `write`; `newsletters` is
 * public (a key widens it), and so is `subscriptions` (a key given must be a write key: it
 * makes the subscribe a trusted change).
 */
export const V2_CONTRACT_ENDPOINTS: readonly V2ContractEndpoint[] = [
  { path: '/subscriptions', methods: { POST: 'optional-write' }, cors: true },
  { path: '/subscribers', methods: { GET: 'read', POST: 'write' }, cors: false },
  {
    path: '/subscribers/{id}',
    methods: { GET: 'read', PUT: 'write', DELETE: 'write' },
    cors: false,
  },
  // Lists: reads as the original, writes ours (create, rename, delete).
  { path: '/lists', methods: { GET: 'read', POST: 'write' }, cors: false },
  { path: '/lists/{id}', methods: { GET: 'read', PUT: 'write', DELETE: 'write' }, cors: false },
  { path: '/extrafields', methods: { GET: 'read' }, cors: false },
  { path: '/extrafields/{id}', methods: { GET: 'read' }, cors: false },
  { path: '/newsletters', methods: { GET: 'optional' }, cors: true },
  { path: '/newsletters/{id}', methods: { GET: 'optional' }, cors: true },
  { path: '/test', methods: { GET: 'read' }, cors: false },
  // Our extension (decisions part 11): issues over HTTP, write keys for changes, read for reports.
  { path: '/issues', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}', methods: { PUT: 'write' }, cors: false },
  { path: '/issues/{id}/copy', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/test', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/send', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/pause', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/resume', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/cancel', methods: { POST: 'write' }, cors: false },
  { path: '/issues/{id}/schedule', methods: { POST: 'write', DELETE: 'write' }, cors: false },
  { path: '/issues/{id}/report', methods: { GET: 'read' }, cors: false },
  // What the web console needs beyond that (read keys for what it shows).
  { path: '/issues/{id}/audience', methods: { GET: 'read' }, cors: false },
  { path: '/account', methods: { GET: 'read' }, cors: false },
  { path: '/settings', methods: { GET: 'read', PUT: 'write' }, cors: false },
  { path: '/subscribers/{id}/issues', methods: { GET: 'read' }, cors: false },
  { path: '/subscribers/import', methods: { POST: 'write' }, cors: false },
  // The console's people: signed-in admins only, no key ([people.manage]).
  { path: '/people', methods: { GET: 'write', POST: 'write' }, cors: false },
  { path: '/people/{email}', methods: { DELETE: 'write' }, cors: false },
];
