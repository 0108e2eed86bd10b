/**
 * Cuts a CSV file into parts of at most `rows` records, each starting with the header row, as
 * `POST /subscribers/import` takes them. Records are found by quote state, so a quoted cell
 * may hold line breaks; nothing else of CSV is interpreted here (the API parses each part).
 */
export interface CsvPart {
  /** The part: header row, then its records. */
  readonly text: string;
  /** The file's line number (1-based, the header is line 1) of the part's first record. */
  readonly firstLine: number;
  readonly records: number;
}

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

/** The file's parts of at most `rows` records each (none for a file with only a header). */
export function csvParts(text: string, rows = 1000): CsvPart[] {
  const [header, ...records] = csvRecords(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  const parts: CsvPart[] = [];
  for (let i = 0; i < records.length; i += rows) {
    const slice = records.slice(i, i + rows);
    parts.push({
      text: `${[header.record, ...slice.map((each) => each.record)].join('\n')}\n`,
      firstLine: slice[0]?.line ?? 2,
      records: slice.length,
    });
  }
  return parts;
}
