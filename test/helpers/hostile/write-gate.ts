// The bytes the harness's writes have in flight, and a gate that holds new writes back while the disk filler takes
// the volume down to just above the free-space reserve: the filler must leave room for what is already on its way,
// and the server's reading of the free space must be fresh before new writes are measured against it.

/** Write bytes in flight and a gate new writes pass through. */
export class WriteGate {
  private inFlight = 0;
  private closed: { promise: Promise<void>; open: () => void } | undefined;

  /** Bytes of the writes sent and not yet answered. */
  get bytesInFlight(): number {
    return this.inFlight;
  }

  /** Waits while the gate is closed, then counts `bytes` in flight until the returned release is called. */
  async enter(bytes: number): Promise<() => void> {
    while (this.closed) await this.closed.promise;
    this.inFlight += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= bytes;
    };
  }

  /** Holds new writes back until open(). */
  close(): void {
    if (this.closed) return;
    let open = (): void => undefined;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    this.closed = { promise, open };
  }

  open(): void {
    const closed = this.closed;
    this.closed = undefined;
    closed?.open();
  }
}
