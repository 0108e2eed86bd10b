/** Paths of the pages behind the links in mails, below `{api_root}`. */
export const LINK_PATHS = {
  confirm: '/subscription/confirm',
  unsubscribe: '/subscription/unsubscribe',
} as const;

/** Builds the link for a page and a raw token. `apiRoot` has no trailing slash. */
export function pageLink(apiRoot: string, page: keyof typeof LINK_PATHS, rawToken: string): string {
  return `${apiRoot.replace(/\/+$/, '')}${LINK_PATHS[page]}?token=${encodeURIComponent(rawToken)}`;
}

/** Path of an issue's web version below `{api_root}` (the route `/newsletters/{id}/view`). */
export function webVersionPath(newsletterId: number): string {
  return `/newsletters/${newsletterId}/view`;
}
