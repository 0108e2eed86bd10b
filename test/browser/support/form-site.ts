import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A third-party site on another origin than the API's, holding the forms a test opens. */
export interface FormSite {
  /** `http://127.0.0.1:<port>`: not the API's `localhost`, so calls are cross-site. */
  readonly root: string;
  close(): Promise<void>;
}

/** Serves the HTML page `pageFor` gives for each requested path. */
export async function startFormSite(pageFor: (path: string) => string): Promise<FormSite> {
  const server = createServer((request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(pageFor(request.url ?? '/'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
