/**
 * The records of a CSV file, for cutting it into the parts `POST /subscribers/import` takes
 * (import-run.ts). Records are found by quote state, so a quoted cell may hold line breaks;
 * nothing else of CSV is interpreted here (the API parses each part).
 */

/** The records of a CSV text (each with its line ending removed) and the line each starts on. */
export function csvRecords(text: string): { record: string; line: number }[] {
  const records: { record: string; line: number }[] = [];
  let quoted = false;
  let start = 0;
  let line = 1;
  let startLine = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') quoted = !quoted;
    else if (c === '\n') {
      if (!quoted) {
        records.push({ record: text.slice(start, i).replace(/\r$/, ''), line: startLine });
        start = i + 1;
        startLine = line + 1;
      }
      line++;
    }
  }
  if (start < text.length)
    records.push({ record: text.slice(start).replace(/\r$/, ''), line: startLine });
  return records.filter((each) => each.record !== '');
}
