/**
 * The tables this test file made in the run's DynamoDB Local, dropped when the file ends
 * (setup.ts). DynamoDB Local answers every request more slowly as tables pile up in its one
 * database: measured with 1,600 conditional puts, updates and gets, 1.71 ms of its CPU per
 * request beside one table, 1.95 ms beside 200 (the unit and integration files alone made 250
 * and never dropped them). This module imports nothing, so that the setup file of every test
 * file can hold it without loading the SDK.
 */
const names: string[] = [];
let drop: ((tables: readonly string[]) => Promise<void>) | undefined;

/** Notes a table made, and how to drop tables (the client that made it). */
export function madeTable(
  name: string,
  dropper: (tables: readonly string[]) => Promise<void>,
): void {
  names.push(name);
  drop = dropper;
}

/** Drops every table noted since the last call. */
export async function dropMadeTables(): Promise<void> {
  const tables = names.splice(0);
  if (tables.length > 0 && drop) await drop(tables);
}
