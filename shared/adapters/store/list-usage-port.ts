/**
 * Which issues still to be sent name a list: what deleting the list waits for
 * ([v2.lists-delete]). Unavailability is thrown as a DependencyError.
 */
export interface ListUsage {
  /** Ids of the issues draft, scheduled, sending or paused whose lists include `listId`. */
  unsentIssuesNaming(listId: number): Promise<number[]>;
}
