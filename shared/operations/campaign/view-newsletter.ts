import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import { hasWebVersion, renderWebVersion } from '../../domain/campaign/web-version.ts';
import { type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { LINK_PATHS } from '../../domain/links.ts';
import type { Settings } from '../../domain/settings-schema.ts';

/**
 * What the web version reads: the issue and its content, nothing about anyone; and the
 * settings, for what an empty tag reads as.
 */
export interface ViewDependencies {
  readonly campaigns: Pick<CampaignStore, 'getCampaign' | 'getContent'>;
  readonly settings: () => Promise<Pick<Settings, 'campaign'>>;
}

// A newsletter id as the path carries it: a positive decimal integer, no sign, no leading zero,
// small enough to be exact as a number.
const _ID = /^[1-9][0-9]{0,14}$/;

/**
 * The web version of a newsletter ([campaign.web-version]): the HTML document of an issue that
 * is sent and not private, or a 404. A draft, a private issue, an unknown id and a path segment
 * that is no id at all get the same 404, so the page tells nobody which drafts exist.
 *
 * @param rawId the `{id}` path parameter, as sent.
 * @param apiRootPath `{api_root}`'s path on this host (`/api/newsletter/v1`), for the link the
 *   content's `{unsubscription_url}` becomes; a path, not a URL, so the page is the same
 *   whatever host header reached it, and a cache may serve it to anyone.
 */
export async function viewNewsletter(
  deps: ViewDependencies,
  rawId: unknown,
  apiRootPath: string,
): Promise<{ readonly html: string } | NewsletterError> {
  const notFound = newsletterError('not_found', 'There is no published newsletter with this id.');
  if (typeof rawId !== 'string' || !_ID.test(rawId)) return notFound;
  const id = Number(rawId);
  // Eventually consistent: half the read units, and a sent issue's content never changes.
  const issue = await deps.campaigns.getCampaign(id, { consistent: false });
  if (!issue || !hasWebVersion(issue)) return notFound;
  const content = await deps.campaigns.getContent(id, { consistent: false });
  // A sent issue always has content; one without is no page either.
  if (!content) return notFound;
  const unsubscribePage = `${apiRootPath.replace(/\/+$/, '')}${LINK_PATHS.unsubscribe}`;
  // Read only for a page that exists: a 404 costs no settings read.
  const { campaign } = await deps.settings();
  return { html: renderWebVersion(issue, content, unsubscribePage, campaign.tag_fallbacks) };
}
