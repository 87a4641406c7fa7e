import { describe, expect, it } from 'vitest';
import { OrgStartGate } from '../../src/api/services/org-start-gate.ts';

/** A start that ends when its `finish` is called. */
function heldStart() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { started: false, finish, run: undefined as Promise<string> | undefined, done };
}

describe('OrgStartGate', () => {
  it("holds an org's starts over its limit, oldest first, while another org's start goes straight on", async () => {
    const gate = new OrgStartGate(2);
    const order: string[] = [];
    const starts = ['a1', 'a2', 'a3', 'a4'].map((name) => {
      const start = heldStart();
      start.run = gate.run('org-a', async () => {
        order.push(name);
        start.started = true;
        await start.done;
        return name;
      });
      return start;
    });
    await Promise.resolve();
    expect(starts.map((s) => s.started)).toEqual([true, true, false, false]);

    // Org B is not behind org A's queue.
    expect(await gate.run('org-b', () => Promise.resolve('b1'))).toBe('b1');

    starts[0]!.finish();
    expect(await starts[0]!.run).toBe('a1');
    await new Promise((resolve) => setImmediate(resolve));
    expect(starts.map((s) => s.started)).toEqual([true, true, true, false]);
    for (const s of starts.slice(1)) s.finish();
    expect(await Promise.all(starts.map((s) => s.run))).toEqual(['a1', 'a2', 'a3', 'a4']);
    expect(order).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('passes a failed start on to its caller and frees its place', async () => {
    const gate = new OrgStartGate(1);
    await expect(gate.run('org-a', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(await gate.run('org-a', () => Promise.resolve('next'))).toBe('next');
  });

  it('hold: a place taken until released, once however often the release is called', async () => {
    const gate = new OrgStartGate(1);
    const release = await gate.hold('org-a');
    let second = false;
    const next = gate.hold('org-a').then((r) => {
      second = true;
      return r;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
    expect(await gate.run('org-b', () => Promise.resolve('b'))).toBe('b');
    release();
    release();
    const releaseNext = await next;
    // The second release gave back no place: a third holder waits for the second's.
    let third = false;
    void gate.hold('org-a').then(() => (third = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(false);
    releaseNext();
    await new Promise((resolve) => setImmediate(resolve));
    expect(third).toBe(true);
  });
});
