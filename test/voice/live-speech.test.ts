import OpusScript from 'opusscript';
import { describe, expect, it } from 'vitest';
import { startLiveSpeech } from '../../src/voice/live-speech.ts';
import { FakeSynth, tone } from './fakes.ts';

const ENCODER_DELAY_48K = 312;

function decode(packets: Buffer[]): { frameSamples: number[]; seconds: number; rms: number } {
  const decoder = new OpusScript(48_000, 2);
  try {
    const pcm = packets.map((packet) => decoder.decode(packet));
    const all = Buffer.concat(pcm);
    let sum = 0;
    for (let i = 0; i < all.length; i += 4) sum += all.readInt16LE(i) ** 2;
    return { frameSamples: pcm.map((frame) => frame.length / 4), seconds: all.length / 4 / 48_000, rms: Math.sqrt(sum / (all.length / 4)) };
  } finally {
    decoder.delete();
  }
}

async function readAll(live: ReturnType<typeof startLiveSpeech>): Promise<Buffer[]> {
  const packets: Buffer[] = [];
  for await (const packet of live.packets) packets.push(packet as Buffer);
  return packets;
}

describe('live speech: streamed pcm16 to Opus packets', () => {
  it('turns 24 kHz mono chunks of any size into 20 ms 48 kHz stereo packets covering the whole speech', async () => {
    const speech = tone(1.5);
    const synth = new FakeSynth();
    const live = startLiveSpeech((signal) => synth.synthesize({ text: 'x', signal }));
    const packets = readAll(live);
    await synth.waitForRequests(1);
    const [request] = synth.requests;
    for (let at = 0, size = 4801; at < speech.length; at += size, size = size === 4801 ? 777 : 4801) {
      request!.push(speech.subarray(at, at + size)); // odd sizes: samples straddle chunks
    }
    request!.end();
    const decoded = decode(await packets);

    // 1.5 s = 72,000 samples at 48 kHz, plus the encoder's lookahead, in whole 960-sample frames.
    expect(decoded.frameSamples).toHaveLength(Math.ceil((72_000 + ENCODER_DELAY_48K) / 960));
    expect(decoded.frameSamples.every((samples) => samples === 960)).toBe(true);
    expect(decoded.seconds).toBeGreaterThanOrEqual(1.5 + ENCODER_DELAY_48K / 48_000);
    expect(decoded.seconds).toBeLessThan(1.5 + ENCODER_DELAY_48K / 48_000 + 0.02);
    expect(decoded.rms).toBeGreaterThan(4000); // the tone, not silence (8000 peak → ~5650 rms)
    expect(await live.synthesis).toEqual({ status: 'complete' });
  });

  it('hands out the first packet while synthesis is still running', async () => {
    const synth = new FakeSynth();
    const live = startLiveSpeech((signal) => synth.synthesize({ text: 'x', signal }));
    const first = new Promise<Buffer>((resolve) => live.packets.once('data', resolve));
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.1)); // 100 ms: five frames' worth, stream still open
    expect((await first).length).toBeGreaterThan(0);
    expect(synth.requests[0]!.aborted()).toBe(false);
    live.cancel();
    expect(synth.requests[0]!.aborted()).toBe(true);
    expect(await live.synthesis).toEqual({ status: 'cancelled' });
  });

  it('reads the service as fast as it sends, even when nobody plays yet', async () => {
    const synth = new FakeSynth();
    const live = startLiveSpeech((signal) => synth.synthesize({ text: 'x', signal }));
    await synth.waitForRequests(1);
    for (let i = 0; i < 50; i++) synth.requests[0]!.push(tone(0.1));
    synth.requests[0]!.end();
    expect(await live.synthesis).toEqual({ status: 'complete' }); // done before a single packet was read
    const decoded = decode(await readAll(live));
    expect(decoded.seconds).toBeGreaterThan(5);
  });

  it('ends the packets cleanly when synthesis fails midway, keeping what arrived, and reports the failure', async () => {
    const synth = new FakeSynth();
    const live = startLiveSpeech((signal) => synth.synthesize({ text: 'x', signal }));
    const packets = readAll(live);
    await synth.waitForRequests(1);
    synth.requests[0]!.push(tone(0.5));
    synth.requests[0]!.fail(new Error('connection reset'));
    const decoded = decode(await packets); // no stream error: the player sees a normal end
    expect(decoded.seconds).toBeGreaterThanOrEqual(0.5);
    expect(decoded.seconds).toBeLessThan(0.56);
    expect(await live.synthesis).toMatchObject({ status: 'failed', received: 1, error: new Error('connection reset') });
  });
});
