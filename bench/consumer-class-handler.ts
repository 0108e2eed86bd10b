// The same Lambda written with the function class: `Newsletter.add_subscriber`. The class holds
// every operation, the campaign ones included, so a bundler keeps all of them.
import { Newsletter } from '../shared/index.ts';

export const handler = async (event: { email: string; name?: string }) =>
  Newsletter.add_subscriber(event);
