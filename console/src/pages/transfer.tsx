/** Importing subscribers from a CSV, part by part with progress, and exporting them. */
import { useState } from 'preact/hooks';
import { readCsvParts } from '../api.ts';
import { csvParts } from '../csv-parts.ts';
import { notImportedCsv } from '../import-run.ts';
import { useSession } from '../session/session.tsx';
import { download } from '../ui/download.ts';
import { Busy, Done, Problem } from '../ui/feedback.tsx';
import { Page } from '../ui/layout.tsx';
import { useAction } from './issue-actions.tsx';

interface Rejected {
  readonly line: number;
  readonly row: string;
  readonly reason: string;
}

interface ImportAnswer {
  readonly imported: number;
  readonly updated: number;
  /** Addresses already subscribed: left as they are. */
  readonly existing?: number;
  readonly rejected: readonly Rejected[];
}

export function ImportPage() {
  const { api } = useSession();
  const action = useAction();
  const [progress, setProgress] = useState<{ done: number; of: number } | undefined>(undefined);
  const [result, setResult] = useState<{
    imported: number;
    updated: number;
    existing: number;
    rejected: Rejected[];
  }>();
  return (
    <Page title="Import subscribers">
      <p>
        A CSV with a header row, as <code>npx newsletter subscribers export</code> writes it (
        <code>email</code> at least; <code>name</code>, <code>surname</code>, <code>lists</code>,{' '}
        <code>status</code>, <code>profile_…</code> when known). It is sent in parts of 1,000 rows;
        each row is checked as the CLI's import checks it.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const input = event.currentTarget.elements.namedItem('file') as HTMLInputElement;
          const file = input.files?.[0];
          if (!file) {
            action.setError(new Error('Choose a CSV file first.'));
            return;
          }
          setResult(undefined);
          void action.run(async () => {
            const parts = csvParts(await file.text());
            const of = parts.reduce((sum, part) => sum + part.records, 0);
            const total = { imported: 0, updated: 0, existing: 0, rejected: [] as Rejected[] };
            setProgress({ done: 0, of });
            let done = 0;
            for (const part of parts) {
              const answer = await api.call<ImportAnswer>('/subscribers/import', {
                method: 'POST',
                body: part.text,
                contentType: 'text/csv',
              });
              total.imported += answer.body.imported;
              total.updated += answer.body.updated;
              total.existing += answer.body.existing ?? 0;
              // Each part numbers its lines from its own header: give the file's line numbers.
              total.rejected.push(
                ...answer.body.rejected.map((r) => ({ ...r, line: r.line - 2 + part.firstLine })),
              );
              done += part.records;
              setProgress({ done, of });
            }
            setResult(total);
          });
        }}
      >
        <label for="file">CSV file</label>
        <input id="file" name="file" type="file" accept=".csv,text/csv" />
        <button type="submit" disabled={action.busy}>
          Import
        </button>
      </form>
      {action.busy && progress && (
        <Busy
          label={`Importing: ${progress.done} of ${progress.of} rows`}
          value={progress.done}
          max={progress.of}
        />
      )}
      <Problem error={action.error} />
      {result && (
        <Done>
          Imported {result.imported}, updated {result.updated}, already subscribed {result.existing}{' '}
          (left as they were), rejected {result.rejected.length}.
        </Done>
      )}
      {result && result.rejected.length > 0 && (
        <section aria-labelledby="rejected-heading">
          <h2 id="rejected-heading">Rejected rows</h2>
          <p>
            Correct them in the file and import it again (rows already in are updated, not doubled).
          </p>
          <button
            type="button"
            onClick={() => download('rejected-rows.csv', notImportedCsv(result.rejected))}
          >
            Download the rejected rows
          </button>
          <ul>
            {result.rejected.slice(0, 50).map((r) => (
              <li key={r.line}>
                Line {r.line}: {r.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
    </Page>
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
