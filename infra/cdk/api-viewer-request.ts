import { VIEWER_HOST_HEADER, VIEWER_IP_HEADER } from '../../functions/http/client-address.ts';

/**
 * CloudFront Function (viewer request) of the distribution's API behaviour: writes the address
 * the viewer connected from and the host it addressed into headers of the API's own
 * ([http.front-door]), over any a viewer sent. The API believes them only beside the origin
 * secret CloudFront adds, so they say who the client is and where links point. One source for
 * the distribution and for the local cloud, which runs this very code (infra/local/cloud).
 */
export function apiViewerRequestFunctionCode(): string {
  return [
    'function handler(event) {',
    '  var request = event.request;',
    `  request.headers['${VIEWER_IP_HEADER}'] = { value: event.viewer.ip };`,
    `  request.headers['${VIEWER_HOST_HEADER}'] = { value: request.headers.host ? request.headers.host.value : '' };`,
    '  return request;',
    '}',
  ].join('\n');
}
