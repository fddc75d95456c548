/** The answers of /healthz and /readyz: the envelope, outside /v1, without quota headers. */
import { type TSchema, Type } from '@sinclair/typebox';
import { RequestId } from './common.js';
import { ErrorResponses } from './responses.js';

const RID = 'req_3f9k2m1x_1a';
const RequestIdHeader = {
  'X-Request-Id': Type.String({ description: 'Request identifier, equal to meta.requestId' }),
};

const answer = (data: TSchema, description: string, headers: Record<string, TSchema>, example: object) =>
  Type.Object(
    { data, meta: Type.Object({ requestId: RequestId }, { additionalProperties: false }) },
    {
      additionalProperties: false,
      description,
      headers,
      examples: [{ ...example, meta: { requestId: RID } }],
    },
  );

const readiness = (status: TSchema) =>
  Type.Object(
    {
      status,
      store: Type.Boolean({ description: 'The store answered a ping' }),
      limiter: Type.Boolean({ description: 'The limiter (Redis, when configured) answered a ping' }),
    },
    { additionalProperties: false },
  );

export const HealthResponses = {
  200: answer(
    Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false }),
    'The process is up and answering',
    RequestIdHeader,
    { data: { status: 'ok' } },
  ),
  414: ErrorResponses[414],
  500: ErrorResponses[500],
};

export const ReadinessResponses = {
  200: answer(
    readiness(Type.Literal('ready')),
    'Store and limiter reachable, not draining: send traffic here',
    RequestIdHeader,
    { data: { status: 'ready', store: true, limiter: true } },
  ),
  503: answer(
    readiness(Type.Union([Type.Literal('not_ready'), Type.Literal('draining')])),
    'The store or the limiter is unreachable (`not_ready`), or the instance is shutting down (`draining`): ' +
      'send traffic elsewhere',
    {
      ...RequestIdHeader,
      'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds before asking again' }),
    },
    { data: { status: 'not_ready', store: false, limiter: true } },
  ),
  414: ErrorResponses[414],
  500: ErrorResponses[500],
};
