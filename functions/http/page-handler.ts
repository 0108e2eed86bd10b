import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isNewsletterError, type NewsletterError } from '../../shared/domain/errors.ts';
import type { CallContext } from '../../shared/operations/dependencies.ts';
import type { LinkOutcome } from '../../shared/operations/token-links.ts';
import type { RouteEntry } from '../route-table/route-entry.ts';
import type { ProxyHandler } from './api-handler.ts';
import { apiRootOf } from './api-root.ts';
import { frontDoor } from './client-address.ts';
import type { FunctionRuntime } from './function-runtime.ts';
import { methodNotAllowed } from './method-guard.ts';
import { observability, requestIdOf } from './observability.ts';
import type { HtmlPage } from './pages/html-page.ts';
import { type MessagePageKind, messagePage } from './pages/message-page.ts';
import { parseRequest } from './parse-request.ts';

/** What a link page does: show its button (GET, changes nothing) and act on the POST. */
export interface LinkPage {
  /** The page with the button, for a live link. */
  readonly show: (token: string) => HtmlPage;
  /** Whether a link is live, for the GET; changes nothing. */
  readonly check: (token: unknown) => Promise<boolean | NewsletterError>;
  /** Carries the link out; POST of the button or an RFC 8058 one-click POST. */
  readonly act: (
    token: unknown,
    context: CallContext,
    /** Whether the POST is RFC 8058's one-click (`List-Unsubscribe=One-Click`), not the button. */
    oneClick: boolean,
  ) => Promise<LinkOutcome | NewsletterError>;
}

/** Read once per container, like the rest of the function's configuration. */
const door = frontDoor();

const OUTCOME_PAGES: Record<LinkOutcome, MessagePageKind> = {
  confirmed: 'confirmed',
  already_confirmed: 'already-confirmed',
  unsubscribed: 'unsubscribed',
  invalid: 'link-invalid',
};

function toResponse(page: HtmlPage): APIGatewayProxyResult {
  return { statusCode: page.status, headers: { ...page.headers }, body: page.html };
}

/**
 * Builds the handler of a link page. The token comes from the query string (the link in the
 * mail) or the form body (the button), so GET and POST at the same URL both work, and so does
 * a one-click POST whose body is only `List-Unsubscribe=One-Click`.
 */
export function pageHandler(
  route: RouteEntry,
  runtime: FunctionRuntime,
  page: LinkPage,
): ProxyHandler {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(observability(runtime, route.name))
    .handler(async (event, context) => {
      const wrongMethod = methodNotAllowed(route, event.httpMethod);
      if (wrongMethod) return wrongMethod;
      const requestId = requestIdOf(event, context);
      const params = await parseRequest(event);
      const raw = isNewsletterError(params) ? undefined : params.token;
      const token = Array.isArray(raw) ? raw[0] : raw;
      const failure = (error: NewsletterError): APIGatewayProxyResult =>
        toResponse(messagePage(error.status === 503 ? 'unavailable' : 'failed', { requestId }));

      if (event.httpMethod === 'GET') {
        const live = await page.check(token);
        if (isNewsletterError(live)) return failure(live);
        return toResponse(
          live && typeof token === 'string' ? page.show(token) : messagePage('link-invalid'),
        );
      }
      const apiRoot = apiRootOf(event, route.path, door.host(event));
      const oneClick = !isNewsletterError(params) && params['List-Unsubscribe'] === 'One-Click';
      const outcome = await page.act(
        token,
        {
          trusted: false,
          ...(apiRoot ? { apiRoot } : {}),
          ...door.client(event),
        },
        oneClick,
      );
      if (isNewsletterError(outcome)) return failure(outcome);
      return toResponse(messagePage(OUTCOME_PAGES[outcome], { requestId }));
    });
}
