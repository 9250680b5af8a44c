// TypeBox schemas of the access-key routes (keys.ts): the key as the API shows it, its permissions in either form,
// the effective permissions and the simulator. The console's types derive from these (web/src/api/types.ts).

import { Type } from '@sinclair/typebox';

const KeyId = Type.String({ pattern: '^[A-Z0-9]{20}$', description: 'Access key id: 20 uppercase letters and digits' });
export const Params = Type.Object({ id: KeyId });
export const ScopeAction = Type.Union([
  Type.Literal('GetObject'),
  Type.Literal('PutObject'),
  Type.Literal('DeleteObject'),
  Type.Literal('ListBucket'),
]);
export const Scope = Type.Object(
  {
    bucket: Type.String({ minLength: 1, maxLength: 63, description: 'The one bucket the key may use' }),
    prefix: Type.Optional(
      Type.String({ maxLength: 1024, description: 'Only keys starting with this; empty for the whole bucket' }),
    ),
    actions: Type.Optional(Type.Array(ScopeAction, { minItems: 1, maxItems: 4, description: 'Default: all four' })),
  },
  { additionalProperties: false, description: 'The prefix-scope shorthand, compiled into a policy' },
);
const PolicyDocument = Type.Object(
  {},
  {
    additionalProperties: true,
    description:
      'An IAM-style policy document (Version, Statement with Effect, Action, Resource, Condition; no Principal)',
  },
);
export const PermissionsInput = Type.Object(
  {
    scope: Type.Optional(Scope),
    policy: Type.Optional(Type.Union([PolicyDocument, Type.String({ description: 'The policy as JSON text' })])),
  },
  { additionalProperties: false, description: 'Exactly one of scope or policy' },
);
export const PermissionsView = Type.Object({ scope: Type.Optional(Scope), policy: Type.Optional(PolicyDocument) });
const Timestamp = Type.String({ format: 'date-time' });

export const KeyView = Type.Object({
  accessKeyId: KeyId,
  name: Type.String(),
  description: Type.String(),
  enabled: Type.Boolean(),
  permissions: Type.Union([PermissionsView, Type.Null()], { description: 'null: denied everything' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  createdBy: Type.String(),
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: 'Last authenticated S3 request, to the minute' }),
  expiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'When the key stops authenticating (InvalidAccessKeyId from then on); null: never',
  }),
});
export const IssuedKeyView = Type.Object({
  ...KeyView.properties,
  secretAccessKey: Type.String({ description: 'Shown once, here only; store it now' }),
});
export const KeyList = Type.Object({ items: Type.Array(KeyView) });

const Name = Type.String({ minLength: 1, maxLength: 128 });
const Description = Type.String({ maxLength: 1024 });
const ExpiresAt = Type.Union([Timestamp, Type.Null()], {
  description: 'When the key stops working: a future date-time; null (or absent at creation) for never',
});
export const CreateBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ default: true })),
    permissions: Type.Optional(Type.Union([PermissionsInput, Type.Null()])),
    expiresAt: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false },
);
export const UpdateBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
    permissions: Type.Optional(
      Type.Union([PermissionsInput, Type.Null()], { description: 'null removes every permission' }),
    ),
    expiresAt: Type.Optional(ExpiresAt),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Effective = Type.Object({
  accessKeyId: KeyId,
  form: Type.Union([Type.Literal('none'), Type.Literal('scope'), Type.Literal('policy')]),
  scope: Type.Optional(Scope),
  policy: Type.Union([PolicyDocument, Type.Null()], {
    description: 'The policy in force (compiled from the scope for that form)',
  }),
});
export const SimulateBody = Type.Object(
  {
    action: Type.String({ minLength: 1, maxLength: 128, description: 'An S3 action, e.g. s3:GetObject' }),
    bucket: Type.Optional(
      Type.String({ maxLength: 63, description: 'Omitted or empty for account-level actions (ListAllMyBuckets)' }),
    ),
    key: Type.Optional(
      Type.String({ minLength: 1, maxLength: 1024, description: 'Object key; for list actions, the listing prefix' }),
    ),
    context: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'Condition keys such as aws:SourceIp; keys not given are absent',
      }),
    ),
  },
  { additionalProperties: false },
);
export const Simulation = Type.Object({
  decision: Type.Union([Type.Literal('allow'), Type.Literal('deny')]),
  reason: Type.Union([Type.Literal('explicit-deny'), Type.Literal('allowed'), Type.Literal('implicit-deny')]),
  statement: Type.Optional(
    Type.Object({
      source: Type.Union([Type.Literal('key'), Type.Literal('bucket')]),
      sid: Type.Optional(Type.String()),
      index: Type.Integer({ description: "Index in the key's effective policy or the bucket policy" }),
    }),
  ),
});
