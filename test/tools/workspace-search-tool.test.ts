import { describe, expect, it } from 'vitest';
import type { ToolCall } from '../../src/service/types.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { workspaceSearchTool } from '../../src/tools/workspace-search-tool.ts';
import { memoryWorkspace, workspaceMessage } from '../helpers/memory-workspace.ts';
import { toolContext } from './context.ts';

const registry = new ToolRegistry([workspaceSearchTool]);
const search = (args: Record<string, unknown>, workspace: ReturnType<typeof memoryWorkspace>) =>
  registry.execute(call(args), toolContext({ workspace }));

function call(args: Record<string, unknown>): ToolCall {
  return { id: 'call_1', type: 'function', function: { name: 'search_messages', arguments: JSON.stringify(args) } };
}

describe('search_messages', () => {
  const channels = {
    general: [workspaceMessage('general', 1, 'release date is March 14'), workspaceMessage('general', 2, 'lunch?')],
    launch: [workspaceMessage('launch', 1, 'launch checklist: release date confirmed', { author: 'Carol' })],
  };

  it('searches the channel it was asked in, or another the user names; says when there is none', async () => {
    const workspace = memoryWorkspace(channels, { here: 'general' });
    expect((await search({ query: 'release' }, workspace)).content).toMatch(
      /^Messages matching "release", best first:\n\[1\] .* · #general · Bob: release date is March 14$/,
    );
    const other = await search({ query: 'release', channel: '#launch' }, workspace);
    expect(other.content).toMatch(/\[1\] .* · #launch · Carol: launch checklist/);
    expect(other.citations.map((c) => c.url)).toEqual(['https://chat.example/launch/1']);
    expect(workspace.reads.map((r) => [r.channelId, r.limit])).toEqual([
      ['general', 1000],
      ['launch', 1000],
    ]);
    expect((await search({ query: 'x', channel: '#nowhere' }, workspace)).content).toBe('There is no channel called #nowhere that I know of.');
  });

  it('passes a refusal on as the reason, and tells how far back it read when the history was cut short', async () => {
    const refused = memoryWorkspace(channels, { here: 'general', refused: ['secret'] });
    const refusal = await search({ query: 'codename', channel: 'secret' }, refused);
    expect(refusal.content).toBe('Error: #secret is private: ask me about it there or in a direct message, not where others can read the answer.');
    expect(refusal.citations).toEqual([]);
    const cut = memoryWorkspace(channels, { here: 'general', cutShort: 'I read only the latest 15 messages.' });
    expect((await search({ query: 'nothing-like-this' }, cut)).content).toBe(
      'No message matches "nothing-like-this" among the 2 read.\nNote for the answer: I read only the latest 15 messages.',
    );
  });

  it('cites neither the question being answered nor Herald’s own answers', async () => {
    const workspace = Object.assign(
      memoryWorkspace({
        general: [
          workspaceMessage('general', 1, 'release date is March 14'),
          workspaceMessage('general', 2, 'the release date is March 14 [1]', { authorId: 'herald', author: 'Herald', isBot: true }),
          workspaceMessage('general', 3, 'what is the release date?'),
        ],
      }),
      { heraldId: 'herald', questionId: 'general-3' },
    );
    const result = await search({ query: 'release date' }, workspace);
    expect(result.citations.map((c) => c.url)).toEqual(['https://chat.example/general/1']);
  });
});
