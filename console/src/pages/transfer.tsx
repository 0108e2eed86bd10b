/** Importing subscribers from a CSV, part by part with progress, and exporting them. */
import { useRef, useState } from 'preact/hooks';
import type { ImportPreview } from '../../../shared/domain/import-preview.ts';
import type { ImportSource } from '../../../shared/domain/import-sources.ts';
import { readCsvParts } from '../api.ts';
import {
  type ImportRun,
  lineRanges,
  notImportedCsv,
  PART_ROWS,
  previewImport,
  rejectedRows,
  rowsDone,
  runImport,
  startImport,
} from '../import-run.ts';
import { useSession } from '../session/session.tsx';
import { download } from '../ui/download.ts';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { useAction } from './issue-actions.tsx';

/** Whose export a file may be, as the import reads them ([import.sources]). */
const SOURCES: readonly (readonly [ImportSource, string])[] = [
  ['newsletter', 'This service (subscribers export)'],
  ['original', 'The original WordPress plugin'],
  ['mailchimp', 'Mailchimp (one of its subscribed, unsubscribed, cleaned files)'],
  ['listmonk', 'listmonk'],
  ['substack', 'Substack (its email list)'],
];

export function ImportPage() {
  const { api } = useSession();
  const action = useAction();
  const run = useRef<ImportRun | undefined>(undefined);
  const [preview, setPreview] = useState<ImportPreview | undefined>(undefined);
  // The run is changed in place as parts are answered; this redraws the page each time.
  const [, setStep] = useState(0);
  const redraw = () => setStep((n) => n + 1);
  const go = () =>
    void action.run(async () => {
      if (run.current) await runImport(api, run.current, redraw);
    });
  const current = run.current;
  return (
    <Page title="Import subscribers">
      <p>
        A CSV with a header row, as <code>npx newsletter subscribers export</code> writes it (
        <code>email</code> at least; <code>name</code>, <code>surname</code>, <code>lists</code>,{' '}
        <code>status</code>, <code>profile_…</code> when known). It is sent in parts of{' '}
        {PART_ROWS.toLocaleString('en-US')} rows; each row is checked as the CLI's import checks it.
        The import only adds: an address already subscribed is left exactly as it is, never changed,
        so importing a file again adds only what is missing.
      </p>
      <p>
        Another service's export is read as that service writes it: its unsubscribed, cleaned and
        bounced people stay so, never confirmed. Preview first: it shows what each column becomes
        and how many rows would be written with which status, and writes nothing.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const form = event.currentTarget;
          const input = form.elements.namedItem('file') as HTMLInputElement;
          const source = (form.elements.namedItem('source') as HTMLSelectElement)
            .value as ImportSource;
          const wanted = (event.submitter as HTMLButtonElement | null)?.value;
          const file = input.files?.[0];
          if (!file) {
            action.setError(new Error('Choose a CSV file first.'));
            return;
          }
          void action.run(async () => {
            const text = await file.text();
            if (wanted === 'preview') {
              run.current = undefined;
              const seen = await previewImport(api, text, source);
              if (!seen) throw new Error('The file has no row to import after its header.');
              setPreview(seen);
              return;
            }
            setPreview(undefined);
            run.current = startImport(text, PART_ROWS, source);
            redraw();
            if (!run.current) throw new Error('The file has no row to import after its header.');
            await runImport(api, run.current, redraw);
          });
        }}
      >
        <label for="source">Whose export</label>
        <select id="source" name="source">
          {SOURCES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label for="file">CSV file</label>
        <input id="file" name="file" type="file" accept=".csv,text/csv" />
        <button type="submit" name="step" value="preview" disabled={action.busy}>
          Preview
        </button>
        <button type="submit" name="step" value="import" disabled={action.busy}>
          Import
        </button>
      </form>
      {preview && !action.busy && <PreviewTable preview={preview} />}
      {action.busy && current && (
        <Busy
          label={`Importing: ${rowsDone(current)} of ${current.rows} rows`}
          value={rowsDone(current)}
          max={current.rows}
        />
      )}
      <Problem error={action.error ?? current?.failure?.error} />
      {current && !action.busy && <Outcome run={current} resume={go} />}
    </Page>
  );
}

/** What an import would write ([import.preview]): each column's field, the rows by status. */
function PreviewTable(props: { preview: ImportPreview }) {
  const { preview } = props;
  const statuses = Object.entries(preview.statuses)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  return (
    <section aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview: nothing was written</h2>
      <p data-preview="counts">
        {preview.rows} rows: would write {statuses || 'none'}; {preview.refused} refused.
      </p>
      <p>Status: {preview.status_rule}.</p>
      <table>
        <thead>
          <tr>
            <th scope="col">Column</th>
            <th scope="col">Becomes</th>
          </tr>
        </thead>
        <tbody>
          {preview.columns.map(({ column, field }) => (
            <tr key={column}>
              <td>{column}</td>
              <td>{field}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {preview.attributes_not_imported.length > 0 && (
        <p>Attributes not imported: {preview.attributes_not_imported.join(', ')}</p>
      )}
      {preview.refusals.length > 0 && (
        <ul>
          {preview.refusals.slice(0, 50).map((r) => (
            <li key={r.line}>
              Line {r.line}: {r.reason}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** What the import did: the counts, and after a failure what is not in and how to go on. */
function Outcome(props: { run: ImportRun; resume: () => void }) {
  const { run } = props;
  const failure = run.failure;
  const rejected = rejectedRows(run).length;
  const counts = `imported ${run.imported}, already subscribed ${run.existing} (left as they were), rejected ${rejected}`;
  return (
    <>
      {run.pending.length === 0 ? (
        <Done>
          Imported {run.imported}, already subscribed {run.existing} (left as they were), rejected{' '}
          {rejected}.
        </Done>
      ) : (
        <section aria-labelledby="stopped-heading" class="stopped">
          <h2 id="stopped-heading">The import stopped</h2>
          <p data-import="done">
            Done: {rowsDone(run)} of {run.rows} rows: {counts}.
          </p>
          {failure && (
            <p data-import="failed">
              {failure.written === 'some'
                ? `Lines ${failure.firstLine}–${failure.lastLine} were sent when the service failed: it wrote what it could of them and said which rows it did not.`
                : failure.written === 'unknown'
                  ? `Lines ${failure.firstLine}–${failure.lastLine} were sent, but no whole answer came back, so whether they are in is not known. Resuming sends them again; those already in then count as already subscribed, nothing is doubled.`
                  : `Lines ${failure.firstLine}–${failure.lastLine} were refused as a whole: nothing of them is in.`}
            </p>
          )}
          <p data-import="pending">
            Not in yet: {run.pending.length} rows (lines {lineRanges(run.pending)}).
          </p>
          <p>
            <button type="button" onClick={props.resume}>
              Resume the import
            </button>
          </p>
          <p class="hint">
            Resuming sends the rows not in yet
            {run.partRows < PART_ROWS ? `, in parts of ${run.partRows} rows` : ''}. Leaving this
            page loses the place; importing the whole file again later is safe all the same: what is
            in already is left as it is and counted as already subscribed.
          </p>
        </section>
      )}
      {run.notImported.length > 0 && (
        <section aria-labelledby="rejected-heading">
          <h2 id="rejected-heading">Rows not imported</h2>
          <p>
            Rows refused, and addresses already subscribed (left as they were). Correct the refused
            rows and import just those again: an address already in is never changed or doubled.
          </p>
          <button
            type="button"
            onClick={() => download('rows-not-imported.csv', notImportedCsv(run.notImported))}
          >
            Download the rows not imported
          </button>
          <ul>
            {run.notImported.slice(0, 50).map((r) => (
              <li key={r.line}>
                Line {r.line}: {r.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
    </>
  );
}

export function ExportPage() {
  const { api } = useSession();
  const action = useAction();
  const [lines, setLines] = useState<number | undefined>(undefined);
  const [done, setDone] = useState(false);
  return (
    <Page title="Export subscribers">
      <p>Every subscriber as one CSV, in the format the import reads.</p>
      <button
        type="button"
        disabled={action.busy}
        onClick={() =>
          void action.run(async () => {
            setDone(false);
            setLines(0);
            const text = await readCsvParts(api, '/subscribers', setLines);
            download('subscribers.csv', text);
            setDone(true);
          })
        }
      >
        Export as CSV
      </button>
      {action.busy && <Busy label={`Exporting: ${lines ?? 0} lines so far…`} />}
      <Problem error={action.error} />
      {done && <Done>Exported {lines} lines (the header included).</Done>}
    </Page>
  );
}
