import { GatewayDispatchEvents } from 'discord.js';

/** A gateway packet as discord.js hands it to `Events.Raw` listeners. */
export interface RawPacket {
  t?: string | null;
  d?: unknown;
}

/**
 * The ids of the messages a MESSAGE_DELETE or MESSAGE_DELETE_BULK packet removes (none for other packets). Read from
 * raw packets, so a deletion counts whether or not discord.js still has the message in its cache.
 */
export function deletedMessageIds(packet: RawPacket): string[] {
  if (packet.t === GatewayDispatchEvents.MessageDelete) return [(packet.d as { id: string }).id];
  if (packet.t === GatewayDispatchEvents.MessageDeleteBulk) return (packet.d as { ids: string[] }).ids;
  return [];
}
