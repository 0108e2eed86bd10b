// The same Lambda written with the function class: the class holds the six operations of the
// interface, so its bundle keeps them all; sending issues is `Campaigns`, which it leaves out.
import { isNewsletterError, Newsletter } from 'serverless-newsletter';

export const handler = async (event: { email: string; name: string }): Promise<number> => {
  const result = await Newsletter.add_subscriber({ email: event.email, name: event.name });
  if (isNewsletterError(result)) throw new Error(`${result.code}: ${result.message}`);
  return result.id;
};
