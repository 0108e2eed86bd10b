// The same Lambda written with the function class: the class holds every operation, campaigns
// included, so its bundle keeps them all; none of them may bring a MIME composer.
import { isNewsletterError, Newsletter } from 'serverless-newsletter';

export const handler = async (event: { email: string; name: string }): Promise<number> => {
  const result = await Newsletter.add_subscriber({ email: event.email, name: event.name });
  if (isNewsletterError(result)) throw new Error(`${result.code}: ${result.message}`);
  return result.id;
};
