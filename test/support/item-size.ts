/**
 * An item's size as DynamoDB counts it against its 400 KB limit and its capacity units
 * (Developer Guide, "Item sizes and formats"): per attribute, its name's UTF-8 bytes and its
 * value's size. A string its UTF-8 bytes; a number about one byte per two significant digits,
 * plus one; a boolean or null one byte; a set the sum of its members; a list or map three bytes,
 * one more per element, and its elements (a map's with their names).
 */
export function itemSize(item: Readonly<Record<string, unknown>>): number {
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value),
    0,
  );
}

function valueSize(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value).replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (typeof value === 'boolean' || value === null || value === undefined) return 1;
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set)
    return [...value].reduce<number>((sum, each) => sum + valueSize(each), 0);
  if (Array.isArray(value))
    return value.reduce<number>((sum, each) => sum + 1 + valueSize(each), 3);
  if (typeof value === 'object')
    return Object.entries(value).reduce(
      (sum, [name, each]) => sum + 1 + Buffer.byteLength(name) + valueSize(each),
      3,
    );
  throw new Error(`no DynamoDB size for ${typeof value}`);
}
