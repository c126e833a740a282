/** Discord's clients take at most one waveform point per 100 ms and never more than 256 points. */
const SECONDS_PER_POINT = 0.1;
export const MAX_WAVEFORM_POINTS = 256;
/** RMS (full scale = 1) that draws a full bar at most; keeps near-silent clips from showing noise as speech. */
const QUIET_REFERENCE = 0.01;

/**
 * The `waveform` of a Discord voice message: base64 of up to 256 bytes, each the RMS loudness of one
 * slice of the clip, scaled so the loudest slice is 255.
 */
export function voiceMessageWaveform(samples: Float32Array, sampleRate: number): string {
  const points = Math.min(MAX_WAVEFORM_POINTS, Math.max(1, Math.ceil(samples.length / sampleRate / SECONDS_PER_POINT)));
  const rms = new Float64Array(points);
  let loudest = QUIET_REFERENCE;
  for (let p = 0; p < points; p++) {
    const start = Math.floor((p * samples.length) / points);
    const end = Math.floor(((p + 1) * samples.length) / points);
    let sum = 0;
    for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
    rms[p] = end > start ? Math.sqrt(sum / (end - start)) : 0;
    if (rms[p]! > loudest) loudest = rms[p]!;
  }
  const bytes = Buffer.alloc(points);
  for (let p = 0; p < points; p++) bytes[p] = Math.round((255 * rms[p]!) / loudest);
  return bytes.toString('base64');
}
