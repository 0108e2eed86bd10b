// Another team's Lambda: adds subscribers from its own import job, through the package.
import { add_subscriber, isNewsletterError, type Subscriber } from 'serverless-newsletter';

export const handler = async (event: { email: string; name: string }): Promise<number> => {
  const result = await add_subscriber({ email: event.email, name: event.name, status: 'C' });
  if (isNewsletterError(result)) throw new Error(`${result.code}: ${result.message}`);
  const subscriber: Subscriber = result;
  return subscriber.id;
};
