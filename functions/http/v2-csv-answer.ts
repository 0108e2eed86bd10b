import Negotiator from 'negotiator';
import type { CsvPart } from '../../shared/operations/v2/v2-report-csv.ts';
import type { V2Answer, V2Caller, V2Request } from './v2-handler.ts';

/** Whether the request asks for CSV rather than JSON (`Accept: text/csv`). */
export function wantsCsv(request: V2Request): boolean {
  return (
    new Negotiator({ headers: { accept: request.accept ?? '' } }).mediaType([
      'application/json',
      'text/csv',
    ]) === 'text/csv'
  );
}

/**
 * One part of a CSV as v2 answers it ([v2.report-csv]): `header=present` on the first part
 * only (RFC 4180's parameter), an attachment named `<name>.csv` (`<name>-after-<id>.csv` for a
 * later part), and while rows remain `Link: <{v2 path}?after=ID>; rel="next"`, path-absolute
 * and without credentials: they go with the next request as with this one.
 */
export function csvPartAnswer(
  part: CsvPart,
  caller: V2Caller,
  path: string,
  name: string,
): V2Answer {
  const target = `${(caller.apiRootPath ?? '').replace(/\/v1$/, '/v2')}${path}`;
  const file = `${name}${part.header ? '' : `-after-${part.after}`}.csv`;
  return {
    body: undefined,
    text: part.text,
    headers: {
      'Content-Type': `text/csv; charset=utf-8; header=${part.header ? 'present' : 'absent'}`,
      'Content-Disposition': `attachment; filename="${file}"`,
      ...(part.next !== undefined ? { Link: `<${target}?after=${part.next}>; rel="next"` } : {}),
    },
  };
}
