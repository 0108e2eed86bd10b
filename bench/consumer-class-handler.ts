// The same Lambda written with the function class: `Newsletter.add_subscriber`. A bundler keeps
// every static method of a class it keeps: the class holds the six operations of the interface,
// and the campaign operations are a class of their own (`Campaigns`).
import { Newsletter } from '../shared/index.ts';

export const handler = async (event: { email: string; name?: string }) =>
  Newsletter.add_subscriber(event);
