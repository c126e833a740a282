import { describe, expect, it } from 'vitest';
import type { ApprovalEnd, ApprovalView } from '../../src/platform/platform.ts';
import { Approvals } from '../../src/platform/approvals.ts';
import { MemoryStore } from '../../src/store/memory-store.ts';
import { silentLogger } from '../helpers/logger.ts';

/** An approval shown nowhere: what it showed and how it ended, and a promise of its view once shown. */
function screen() {
  const ends: ApprovalEnd[] = [];
  let shown!: (view: ApprovalView) => void;
  const view = new Promise<ApprovalView>((resolve) => (shown = resolve));
  return {
    ends,
    view,
    show: async (v: ApprovalView) => {
      shown(v);
      return { settle: async (end: ApprovalEnd) => void ends.push(end) };
    },
  };
}

describe('approvals', () => {
  it("counts only the asker's first press; a later one, or one after the expiry, is told it is gone", async () => {
    const approvals = new Approvals(new MemoryStore(), 'test', 60_000, silentLogger);
    const first = screen();
    const request = { title: 'notes · post', args: { text: 'a' } };
    const asked = approvals.ask({ request, askerId: 'U1', show: first.show, signal: new AbortController().signal });
    const { id, args } = await first.view;
    expect(args).toBe('{\n  "text": "a"\n}');
    expect(await approvals.pressed({ approvalId: id, answer: 'approved', userId: 'U2' })).toBe('refused');
    expect(await approvals.pressed({ approvalId: id, answer: 'denied', userId: 'U1' })).toBe('done');
    expect(await approvals.pressed({ approvalId: id, answer: 'approved', userId: 'U1' })).toBe('gone');
    expect(await asked).toBe('denied');
    expect(first.ends).toEqual(['denied']);
    expect(await approvals.pressed({ approvalId: 'not-an-approval', answer: 'approved', userId: 'U1' })).toBe('gone');

    const hasty = new Approvals(new MemoryStore(), 'test', 1, silentLogger);
    const second = screen();
    expect(await hasty.ask({ request, askerId: 'U1', show: second.show, signal: new AbortController().signal })).toBe('expired');
    expect(second.ends).toEqual(['expired']);
    expect(await hasty.pressed({ approvalId: (await second.view).id, answer: 'approved', userId: 'U1' })).toBe('gone');
  });

  it('ends cancelled, rejecting with the reason, when the answer is stopped while it waits', async () => {
    const approvals = new Approvals(new MemoryStore(), 'test', 60_000, silentLogger);
    const shown = screen();
    const stop = new AbortController();
    const asked = approvals.ask({ request: { title: 't', args: {} }, askerId: 'U1', show: shown.show, signal: stop.signal });
    const { id } = await shown.view;
    stop.abort(new Error('stopped'));
    await expect(asked).rejects.toThrow('stopped');
    expect(shown.ends).toEqual(['cancelled']);
    expect(await approvals.pressed({ approvalId: id, answer: 'approved', userId: 'U1' })).toBe('gone');
  });
});
