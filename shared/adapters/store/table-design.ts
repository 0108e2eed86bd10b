/**
 * The single-table design, shared by the DynamoDB adapter, the CDK stack and the local runner
 * so that the table they create is the table the code queries. See docs/storage.md.
 */

/** Primary key attributes (both strings). */
export const KEY = { partition: 'pk', sort: 'sk' } as const;

/** Attribute DynamoDB TTL deletes expired items by (epoch seconds); used by token items. */
export const TTL_ATTRIBUTE = 'expires_at';

/** Attributes a listing returns; only these are copied into the indexes (INCLUDE projection). */
export const LISTED_ATTRIBUTES = [
  'email',
  'name',
  'surname',
  'gender',
  'lists',
  'profile',
  'status',
  'created',
  'updated',
  'consent',
  'subject',
  'sent_at',
  'url',
  'private',
] as const;

/** Global secondary indexes: newest-first listings by numeric id within a kind. */
export const INDEX = {
  /** Every subscriber (`recent_pk = "subscriber"`) and newsletter (`"newsletter"`), by id. */
  recent: { name: 'recent', partition: 'recent_pk', sort: 'id' },
  /** Sparse: only newsletters that are sent and not private, for keyless callers. */
  publicRecent: { name: 'public_recent', partition: 'public_pk', sort: 'id' },
} as const;
