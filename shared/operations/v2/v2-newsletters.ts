import type { CampaignStore } from '../../adapters/store/campaign-store-port.ts';
import type { Store } from '../../adapters/store/store-port.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import { isPublicIssue, type NewsletterIssueRecord } from '../../domain/newsletter-issue.ts';
import type { RawParameters } from '../../domain/parameters/normalise-parameters.ts';
import { parsePage } from '../../domain/v2/paging.ts';
import type { V2Newsletter } from '../../domain/v2/v2-shapes.ts';
import type { V2Collection } from './v2-settings-reads.ts';

/** What the v2 newsletter reads use: the issues and their contents. */
export interface V2NewsletterDependencies {
  readonly store: Pick<Store, 'recentNewsletterIssues'>;
  readonly campaigns: Pick<CampaignStore, 'getCampaign' | 'getContent'>;
}

/** Most issues a listing pages through: the newest thousand ([v2.newsletters]). */
export const NEWSLETTER_LISTING_LIMIT = 1000;

const ID = /^[1-9]\d{0,14}$/;

async function withContent(
  deps: V2NewsletterDependencies,
  issue: NewsletterIssueRecord,
  keyed: boolean,
): Promise<V2Newsletter> {
  // A sent issue's content never changes: an eventually consistent read is enough.
  const content = await deps.campaigns.getContent(issue.id, { consistent: false });
  return {
    id: issue.id,
    subject: issue.subject,
    html_content: content?.html ?? '',
    plain_content: content?.text ?? '',
    sent_on: issue.sent_at,
    ...(keyed
      ? {
          status: issue.status,
          private: issue.private,
          total: issue.total ?? 0,
          sent: issue.sent ?? 0,
        }
      : {}),
  };
}

/**
 * `GET /newsletters`: newest first; anonymous callers see sent public issues (the sparse
 * index), a key sees every issue with its status and counts (our extension) ([v2.newsletters]).
 */
export async function listV2Newsletters(
  deps: V2NewsletterDependencies,
  params: RawParameters,
  keyed: boolean,
): Promise<V2Collection<V2Newsletter> | NewsletterError> {
  const page = parsePage(params);
  if (isNewsletterError(page)) return page;
  const issues = await deps.store.recentNewsletterIssues(NEWSLETTER_LISTING_LIMIT, keyed);
  const start = (page.page - 1) * page.perPage;
  const items = await Promise.all(
    issues.slice(start, start + page.perPage).map((issue) => withContent(deps, issue, keyed)),
  );
  return { items, total: issues.length, page };
}

/**
 * `GET /newsletters/{id}`: a sent public issue for anyone; a private one is a 403 without a
 * key, as the original; an issue not sent (or unknown) a 404 without a key, so drafts stay
 * unknown to strangers; a key sees any issue.
 */
export async function getV2Newsletter(
  deps: V2NewsletterDependencies,
  rawId: unknown,
  keyed: boolean,
): Promise<V2Newsletter | NewsletterError> {
  const notFound = newsletterError('not_found', 'Newsletter does not exist');
  if (typeof rawId !== 'string' || !ID.test(rawId)) return notFound;
  const issue = await deps.campaigns.getCampaign(Number(rawId), { consistent: false });
  if (!issue) return notFound;
  if (!keyed && !isPublicIssue(issue)) {
    if (issue.status === 'sent')
      return newsletterError('forbidden', 'This newsletter is private: it needs a key.');
    return notFound;
  }
  const answer = await withContent(deps, issue, keyed);
  // A keyed caller editing the issue also sees what it goes to, when, and its web address
  // ([v2.newsletter-detail]).
  return keyed
    ? {
        ...answer,
        lists: [...issue.lists],
        scheduled_at: issue.scheduled_at ?? null,
        url: issue.url ?? null,
      }
    : answer;
}
