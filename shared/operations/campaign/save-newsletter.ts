import type {
  CampaignStore,
  IssueEdit,
  StoredContent,
} from '../../adapters/store/campaign-store-port.ts';
import type { Store } from '../../adapters/store/store-port.ts';
import type { CampaignRecord } from '../../domain/campaign/campaign.ts';
import { parseCampaignContent, parseIssueFields } from '../../domain/campaign/campaign-content.ts';
import { EDITABLE_STATUSES, invalidTransition } from '../../domain/campaign/campaign-status.ts';
import { isNewsletterError, type NewsletterError, newsletterError } from '../../domain/errors.ts';
import type { NewsletterIssueStatus } from '../../domain/newsletter-issue.ts';
import type { Dependencies } from '../dependencies.ts';

/** What an operator gives for an issue; absent fields stay as they are on an edit. */
export interface NewsletterInput {
  readonly subject?: string;
  readonly html?: string;
  /** The text part; without one, it is derived from the HTML. */
  readonly text?: string;
  readonly lists?: readonly number[];
  /** Its public web version; null (on an edit) removes it. */
  readonly url?: string | null;
  readonly private?: boolean;
}

/** A saved issue and what the operator should know about its content (e.g. Gmail clipping). */
export interface SavedNewsletter {
  readonly issue: CampaignRecord;
  readonly warnings: readonly string[];
}

/** What saving an issue needs. */
export type SaveDependencies = Pick<Dependencies, 'settings' | 'now'> & {
  readonly campaigns: CampaignStore;
  readonly store: Pick<Store, 'nextId'>;
};

/** The validated parts of an issue's content, or the error that refuses them. */
async function validated(
  deps: SaveDependencies,
  input: {
    subject: string;
    html: string;
    text?: string;
    lists: readonly number[];
    url?: string;
  },
): Promise<
  | { readonly content: StoredContent; readonly lists: number[]; readonly warnings: string[] }
  | NewsletterError
> {
  const parsed = parseCampaignContent(
    {
      subject: input.subject,
      html: input.html,
      ...(input.text !== undefined ? { text: input.text } : {}),
      lists: [...input.lists],
      ...(input.url ? { web_url: input.url } : {}),
    },
    await deps.settings(),
  );
  if (isNewsletterError(parsed)) return parsed;
  return {
    content: {
      html: parsed.content.html,
      text: parsed.content.text,
      ...(input.text === undefined ? { text_derived: true } : {}),
    },
    lists: [...parsed.content.lists],
    warnings: [...parsed.warnings],
  };
}

/**
 * The error in what an issue is saved with when no content comes along ([campaign.content]):
 * the subject, lists and web URL given, by the rules content is saved by. An empty list of
 * lists is a draft's "not yet"; a null URL removes it.
 */
async function checkedFields(
  deps: SaveDependencies,
  input: Pick<NewsletterInput, 'subject' | 'lists' | 'url'>,
): Promise<NewsletterError | undefined> {
  const fields = parseIssueFields(
    {
      ...(input.subject !== undefined ? { subject: input.subject } : {}),
      ...(input.lists?.length ? { lists: [...input.lists] } : {}),
      ...(typeof input.url === 'string' ? { web_url: input.url } : {}),
    },
    await deps.settings(),
  );
  return isNewsletterError(fields) ? fields : undefined;
}

/**
 * Creates a draft issue ([campaign.content]): with content, its parts are validated as they
 * will be sent (tags known, size within the limit) and the text part derived when not given;
 * without, it is a draft to fill in later.
 */
export async function createNewsletterIssue(
  deps: SaveDependencies,
  input: NewsletterInput,
): Promise<SavedNewsletter | NewsletterError> {
  const subject = input.subject ?? '';
  if (subject.trim() === '') return newsletterError('missing_parameter', 'subject is required');
  let content: StoredContent | undefined;
  let lists = [...(input.lists ?? [])];
  let warnings: string[] = [];
  if (input.html !== undefined || input.text !== undefined) {
    if (input.html === undefined)
      return newsletterError('missing_parameter', 'html is required: the text part goes with it');
    const checked = await validated(deps, {
      subject,
      html: input.html,
      ...(input.text !== undefined ? { text: input.text } : {}),
      lists,
      ...(input.url ? { url: input.url } : {}),
    });
    if (isNewsletterError(checked)) return checked;
    ({ content, lists, warnings } = checked);
  } else {
    const checked = await checkedFields(deps, { subject, lists, url: input.url });
    if (checked) return checked;
  }
  const id = await deps.store.nextId('newsletter');
  await deps.campaigns.createIssue(
    {
      id,
      subject: subject.trim(),
      created: deps.now().toISOString(),
      private: input.private === true,
      lists,
      ...(input.url ? { url: input.url } : {}),
    },
    content,
  );
  const issue = await deps.campaigns.getCampaign(id);
  if (!issue) throw new Error(`newsletter ${id} vanished after it was created`);
  return { issue, warnings };
}

/**
 * Edits an issue ([campaign.content], [campaign.lifecycle]): its content (subject, parts,
 * lists) only while it is a draft or scheduled, validated as a whole again; whether it is
 * private, and its web version, at any time (a sent issue made private leaves the keyless
 * listing at once). Its status never changes here: only the lifecycle's operations move it.
 */
export async function editNewsletterIssue(
  deps: SaveDependencies,
  id: number,
  input: NewsletterInput,
): Promise<SavedNewsletter | NewsletterError> {
  // Privacy and the web URL change in every status: an edit whose issue moved on between its
  // read and its write (a run ended, `sending` became `sent`) is made again on the status the
  // issue has now ([campaign.private-race]); one that moved on twice is refused as it stands.
  const first = await editOnce(deps, id, input);
  if (!('moved' in first)) return first;
  const second = await editOnce(deps, id, input);
  return 'moved' in second ? invalidTransition(id, second.moved, 'edit') : second;
}

async function editOnce(
  deps: SaveDependencies,
  id: number,
  input: NewsletterInput,
): Promise<SavedNewsletter | NewsletterError | { readonly moved: NewsletterIssueStatus }> {
  const current = await deps.campaigns.getCampaign(id);
  if (!current) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
  const touchesContent =
    input.subject !== undefined ||
    input.html !== undefined ||
    input.text !== undefined ||
    input.lists !== undefined;
  const editable = (EDITABLE_STATUSES as readonly string[]).includes(current.status);
  if (touchesContent && !editable) return invalidTransition(id, current.status, 'edit');
  let content: StoredContent | undefined;
  let warnings: string[] = [];
  let lists = input.lists;
  const stored = touchesContent ? await deps.campaigns.getContent(id) : undefined;
  const html = input.html ?? stored?.html;
  if (touchesContent && html !== undefined) {
    // A derived text part follows the HTML; one the operator wrote stays until replaced.
    const text = input.text ?? (stored?.text_derived ? undefined : stored?.text);
    const url = input.url === undefined ? current.url : (input.url ?? undefined);
    const checked = await validated(deps, {
      subject: input.subject ?? current.subject,
      html,
      ...(text !== undefined ? { text } : {}),
      lists: input.lists ?? current.lists,
      ...(url ? { url } : {}),
    });
    if (isNewsletterError(checked)) return checked;
    content = checked.content;
    lists = checked.lists;
    warnings = checked.warnings;
  } else if (input.text !== undefined) {
    return newsletterError('missing_parameter', 'html is required: the text part goes with it');
  } else {
    const checked = await checkedFields(deps, input);
    if (checked) return checked;
  }
  const privacy = input.private ?? current.private;
  const edit: IssueEdit = {
    ...(input.subject !== undefined ? { subject: input.subject.trim() } : {}),
    ...(input.private !== undefined ? { private: input.private } : {}),
    ...(input.url !== undefined ? { url: input.url } : {}),
    ...(lists !== undefined ? { lists } : {}),
    ...(current.status === 'sent' && input.private !== undefined ? { listPublicly: !privacy } : {}),
  };
  const statuses = touchesContent ? EDITABLE_STATUSES : [current.status];
  const issue = await deps.campaigns.editIssue(id, edit, content, statuses);
  if (!issue) {
    const now = await deps.campaigns.getCampaign(id);
    if (!now) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
    // Made again on a fresh read: a content edit then finds the status it cannot edit in.
    return { moved: now.status };
  }
  return { issue, warnings };
}

/**
 * Copies an issue into a new draft ([campaign.copy]): its subject, parts and lists, and
 * whether it is private; not its web version's URL (that is the old issue's page), nor
 * anything of its sending.
 */
export async function copyNewsletterIssue(
  deps: SaveDependencies,
  id: number,
): Promise<SavedNewsletter | NewsletterError> {
  const source = await deps.campaigns.getCampaign(id);
  if (!source) return newsletterError('not_found', `Newsletter ${id} does not exist.`);
  const content = await deps.campaigns.getContent(id);
  const copy = await deps.store.nextId('newsletter');
  await deps.campaigns.createIssue(
    {
      id: copy,
      subject: source.subject,
      created: deps.now().toISOString(),
      private: source.private,
      lists: source.lists,
    },
    content,
  );
  const issue = await deps.campaigns.getCampaign(copy);
  if (!issue) throw new Error(`newsletter ${copy} vanished after it was created`);
  return { issue, warnings: [] };
}
