// The names of the object events (docs/events.md): the one list both config/ (WEBHOOK_EVENTS) and core/ (the event
// object) read. It lives in lib/ because config/ may import nothing else of src/ (.dependency-cruiser.cjs).

export const OBJECT_EVENT_TYPES = ['object.created', 'object.deleted', 'multipart.completed'] as const;
export type ObjectEventType = (typeof OBJECT_EVENT_TYPES)[number];

/** True for one of the three event type names. */
export function isObjectEventType(value: string): value is ObjectEventType {
  return (OBJECT_EVENT_TYPES as readonly string[]).includes(value);
}
