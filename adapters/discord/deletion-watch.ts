import { GatewayDispatchEvents } from 'discord.js';

/** A gateway packet as discord.js hands it to `Events.Raw` listeners. */
export interface RawPacket {
  t?: string | null;
  d?: unknown;
}

/**
 * The messages replies in progress depend on — the question each answers and the messages each has posted — and
 * what to do when Discord says one was deleted. Fed from raw gateway packets, so a deletion counts whether or not
 * discord.js still has the message in its cache.
 */
export class DeletionWatch {
  readonly #watched = new Map<string, () => void>();

  /** Calls `onDeleted` once if the message is deleted before `unwatch`. */
  watch(messageId: string, onDeleted: () => void): void {
    this.#watched.set(messageId, onDeleted);
  }

  unwatch(messageIds: Iterable<string>): void {
    for (const id of messageIds) this.#watched.delete(id);
  }

  /** MESSAGE_DELETE and MESSAGE_DELETE_BULK; other packets are ignored. */
  observe(packet: RawPacket): void {
    if (packet.t === GatewayDispatchEvents.MessageDelete) this.#deleted([(packet.d as { id: string }).id]);
    else if (packet.t === GatewayDispatchEvents.MessageDeleteBulk) this.#deleted((packet.d as { ids: string[] }).ids);
  }

  #deleted(ids: readonly string[]): void {
    for (const id of ids) {
      const onDeleted = this.#watched.get(id);
      if (!onDeleted) continue;
      this.#watched.delete(id);
      onDeleted();
    }
  }
}
