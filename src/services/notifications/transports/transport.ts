// The contract every bucket-notification transport implements (docs/notifications.md "Targets"): the outbox
// worker hands it one rendered AWS event message at a time and records the outcome.

/** One message bound for one target: the AWS event JSON body and what a transport may route on. */
export interface NotificationDelivery {
  body: string;
  key: string;
  eventName: string;
  bucket: string;
}

/** A connection (or connection factory) to one configured target; created lazily, closed when the target goes. */
export interface NotificationTransport {
  /** Resolves once the target has accepted the message; rejects with an Error whose message names the failure class. */
  send(delivery: NotificationDelivery): Promise<void>;
  close(): Promise<void>;
}
