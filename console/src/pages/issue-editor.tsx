/**
 * Writing and editing an issue: subject, HTML with a live preview, the text part, lists,
 * private. The API validates (tags, size, lists) as `newsletters create` does; its answer is
 * shown at the field it names.
 */
import { useRef, useState } from 'preact/hooks';
import { BASE_TAGS, PROFILE_TAG_PREFIX } from '../../../shared/domain/campaign/campaign-tags.ts';
import { ApiError } from '../api.ts';
import { recall, remember } from '../issue-cache.ts';
import { useSession } from '../session/session.tsx';
import type { ExtraField, Issue, List, Newsletter } from '../types.ts';
import { Busy, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { Preview } from '../ui/preview.tsx';
import { useLoad } from '../ui/use-load.ts';

type Field = 'subject' | 'html' | 'text' | 'lists' | 'form';

/** The field an API refusal is about, by the name its message gives (else the form). */
function fieldOf(error: unknown): Field {
  if (!(error instanceof ApiError)) return 'form';
  const message = error.message.toLowerCase();
  for (const name of ['subject', 'lists', 'html', 'text'] as const) {
    if (new RegExp(`\\b${name}\\b`).test(message)) return name;
  }
  if (/\btags?\b|\{/.test(message)) return 'html';
  return 'form';
}

interface Draft {
  subject: string;
  html: string;
  text: string;
  lists: number[] | undefined;
  private: boolean;
}

export function IssueEditor(props: { id?: string }) {
  const { api } = useSession();
  const given = props.id === undefined ? undefined : Number(props.id);
  // A new issue, once saved, is edited as itself (PUT); the page stays put, preview and all.
  const [created, setCreated] = useState<number | undefined>(undefined);
  const id = given ?? created;
  const lists = useLoad(() => api.call<List[]>('/lists').then((a) => a.body), []);
  const fields = useLoad(
    () =>
      api.call<ExtraField[]>('/extrafields').then(
        (a) => a.body,
        () => [] as ExtraField[],
      ),
    [],
  );
  const [draft, setDraft] = useState<Draft | undefined>(
    id === undefined ? { subject: '', html: '', text: '', lists: [], private: false } : undefined,
  );
  const existing = useLoad(async () => {
    if (given === undefined) return undefined;
    const issue = (await api.call<Newsletter>(`/newsletters/${given}`)).body;
    setDraft({
      subject: issue.subject,
      html: issue.html_content,
      text: issue.plain_content,
      lists: issue.lists ? [...issue.lists] : recall(given)?.lists.slice(),
      private: issue.private ?? false,
    });
    return issue;
  }, [given]);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [saved, setSaved] = useState<Issue | undefined>(undefined);
  const lastArea = useRef<HTMLTextAreaElement | null>(null);
  const htmlArea = useRef<HTMLTextAreaElement>(null);

  if (existing.error) {
    return (
      <Page title="Edit issue">
        <Problem error={existing.error} />
      </Page>
    );
  }
  if (!draft) {
    return (
      <Page title="Edit issue">
        <Busy label="Loading the issue…" />
      </Page>
    );
  }
  const current = draft;
  const update = (change: Partial<Draft>) => setDraft({ ...current, ...change });
  const tags = [
    ...BASE_TAGS,
    ...(fields.data ?? []).map((field) => `${PROFILE_TAG_PREFIX}${field.id}`),
  ];

  /** Puts `{tag}` where the cursor was in the HTML or text part. */
  function insertTag(tag: string) {
    const area = lastArea.current ?? htmlArea.current;
    if (!area) return;
    const name = area.name as 'html' | 'text';
    const start = area.selectionStart;
    const value = `${area.value.slice(0, start)}{${tag}}${area.value.slice(area.selectionEnd)}`;
    update({ [name]: value });
    requestAnimationFrame(() => {
      area.focus();
      area.selectionStart = area.selectionEnd = start + tag.length + 2;
    });
  }

  async function save(event: Event) {
    event.preventDefault();
    setSaving(true);
    setError(undefined);
    setSaved(undefined);
    const body = {
      subject: current.subject,
      html: current.html,
      // Left empty, the text part is made from the HTML: the API takes no empty text.
      ...(current.text.trim() === '' ? {} : { text: current.text }),
      private: current.private,
      // Unknown lists (an issue saved in another session) are left as they are.
      ...(current.lists === undefined ? {} : { lists: current.lists }),
    };
    try {
      const answer = await api.call<Issue>(id === undefined ? '/issues' : `/issues/${id}`, {
        method: id === undefined ? 'POST' : 'PUT',
        body,
      });
      const issue = remember(answer.body);
      setSaved(issue);
      setCreated(issue.id);
    } catch (failure) {
      setError(failure);
    } finally {
      setSaving(false);
    }
  }

  const where = error === undefined ? undefined : fieldOf(error);
  const errorAt = (field: Field) =>
    where === field ? <Problem error={error} id={`${field}-error`} /> : null;
  const invalid = (field: Field) =>
    where === field ? { 'aria-invalid': true, 'aria-describedby': `${field}-error` } : {};

  return (
    <Page title={given === undefined ? 'New issue' : `Edit issue ${given}`}>
      {id !== undefined && (
        <p>
          <a href={`/issues/${id}`}>Back to the issue (test, schedule, send)</a>
        </p>
      )}
      <div class="editor">
        <form class="editor-form" onSubmit={save} noValidate>
          <label for="subject">Subject</label>
          <input
            id="subject"
            name="subject"
            value={current.subject}
            onInput={(e) => update({ subject: e.currentTarget.value })}
            {...invalid('subject')}
          />
          {errorAt('subject')}
          <fieldset {...invalid('lists')}>
            <legend>Lists it goes to</legend>
            {lists.loading && <Busy label="Loading the lists…" />}
            <Problem error={lists.error} />
            {current.lists === undefined && (
              <p class="hint">
                This issue's lists were set elsewhere and are kept unless you choose lists here.
              </p>
            )}
            {(lists.data ?? []).map((list) => (
              <label key={list.id} class="check">
                <input
                  type="checkbox"
                  name="lists"
                  value={list.id}
                  checked={current.lists?.includes(list.id) ?? false}
                  onChange={(e) => {
                    const others = (current.lists ?? []).filter((each) => each !== list.id);
                    update({ lists: e.currentTarget.checked ? [...others, list.id] : others });
                  }}
                />{' '}
                {list.name}
              </label>
            ))}
          </fieldset>
          {errorAt('lists')}
          <label class="check">
            <input
              type="checkbox"
              name="private"
              checked={current.private}
              onChange={(e) => update({ private: e.currentTarget.checked })}
            />{' '}
            Private (no public web version, not in the public archive)
          </label>
          <fieldset class="tags">
            <legend>Insert a tag at the cursor</legend>
            {tags.map((tag) => (
              <button key={tag} type="button" class="tag" onClick={() => insertTag(tag)}>
                {`{${tag}}`}
              </button>
            ))}
          </fieldset>
          <label for="html">HTML</label>
          <textarea
            id="html"
            name="html"
            rows={16}
            ref={htmlArea}
            value={current.html}
            spellcheck={false}
            onFocus={(e) => {
              lastArea.current = e.currentTarget;
            }}
            onInput={(e) => update({ html: e.currentTarget.value })}
            {...invalid('html')}
          />
          {errorAt('html')}
          <label for="text">Text part (left empty, it is made from the HTML)</label>
          <textarea
            id="text"
            name="text"
            rows={8}
            value={current.text}
            onFocus={(e) => {
              lastArea.current = e.currentTarget;
            }}
            onInput={(e) => update({ text: e.currentTarget.value })}
            {...invalid('text')}
          />
          {errorAt('text')}
          <button type="submit" disabled={saving}>
            {id === undefined ? 'Save draft' : 'Save changes'}
          </button>
          {saving && <Busy label="Saving…" />}
          {errorAt('form')}
          {saved && (
            <div class="done" role="status">
              <p>
                Saved. <a href={`/issues/${saved.id}`}>Go to the issue to test or send it</a>
              </p>
              {(saved.warnings ?? []).map((warning) => (
                <p key={warning} class="warning">
                  {warning}
                </p>
              ))}
            </div>
          )}
        </form>
        <Preview html={current.html} />
      </div>
    </Page>
  );
}
