import { afterEach, describe, expect, it } from 'vitest';
import { ScheduleError } from '../../src/schedules/schedule-error.ts';
import { UserTimezones } from '../../src/schedules/user-timezones.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';

const stores: MemoryStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

describe('UserTimezones', () => {
  it('reads a user’s own zone first, then the platform’s, then their server’s, then TZ', async () => {
    const store = new MemoryStore();
    stores.push(store);
    const zones = new UserTimezones(store, 'UTC');
    const alice = { platform: 'discord', userId: 'U1', workspaceId: 'G1' };
    expect(await zones.resolve(alice)).toBe('UTC');
    expect(await zones.setWorkspaceZone('discord', 'G1', 'asia/tokyo')).toBe('Asia/Tokyo');
    expect(await zones.explain(alice)).toEqual({ zone: 'Asia/Tokyo', from: 'workspace' });
    expect(await zones.resolve({ ...alice, workspaceId: 'G2' })).toBe('UTC');
    expect(await zones.resolve({ ...alice, platformZone: 'America/Los_Angeles' })).toBe('America/Los_Angeles');
    expect(await zones.resolve({ ...alice, platformZone: 'Nowhere/Atlantis' })).toBe('Asia/Tokyo');

    expect(await zones.setUserZone('discord', 'U1', ' europe/berlin ')).toBe('Europe/Berlin');
    expect(await zones.resolve({ ...alice, platformZone: 'America/Los_Angeles' })).toBe('Europe/Berlin');
    expect(await zones.explain(alice)).toEqual({ zone: 'Europe/Berlin', from: 'user' });
    expect(await zones.resolve({ ...alice, platform: 'slack' })).toBe('UTC');

    await expect(zones.setUserZone('discord', 'U1', 'Mars/Olympus')).rejects.toThrow(ScheduleError);
    await expect(zones.setUserZone('discord', 'U1', 'x'.repeat(5000))).rejects.toMatchObject({ code: 'bad_zone', kind: 'invalid_input' });
    expect(await zones.setUserZone('discord', 'U1', null)).toBeNull();
    expect(await zones.setWorkspaceZone('discord', 'G1', null)).toBeNull();
    expect(await zones.resolve(alice)).toBe('UTC');
  });
});
