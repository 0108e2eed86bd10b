import {
  EVENT_SOURCE,
  EVENT_TYPES,
  eventSchema,
} from '../../shared/domain/events/event-catalogue.ts';
import { conversionOf, type Json, jsonSchemaOf } from './openapi-document.ts';

const CONVERSION = conversionOf({});

/**
 * The events as OpenAPI 3.1 `webhooks`: one entry per event type, its body the event's JSON
 * Schema (docs/api.md, "Events"). On the stack's EventBridge bus the same object is the
 * `detail` of an event whose `source` is EVENT_SOURCE and whose `detail-type` is the type.
 */
export function eventWebhooks(): Json {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `event-${type.replaceAll('.', '-')}`,
          summary: `The ${type} event`,
          description: `On the stack's EventBridge bus as the detail of an event with source ${EVENT_SOURCE} and detail-type ${type}.`,
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: jsonSchemaOf(eventSchema(type), CONVERSION) },
            },
          },
          responses: { '2XX': { description: 'Received.' } },
        },
      },
    ]),
  );
}
