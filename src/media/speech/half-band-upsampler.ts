/**
 * Streaming 2× interpolator (24 kHz → 48 kHz) built from a half-band FIR in polyphase form.
 *
 * Even outputs are the input samples themselves; odd outputs are the half-sample points, each a
 * Kaiser-windowed-sinc weighted sum of the TAPS_PER_SIDE inputs on either side. The filter's delay is
 * compensated inside (the stream waits for TAPS_PER_SIDE samples of lookahead, 1 ms at 24 kHz), so
 * output n lines up with input n/2 and a stream of N samples yields exactly 2N.
 */
export const TAPS_PER_SIDE = 24;
const KAISER_BETA = 9;

function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

function halfSampleTaps(): Float64Array {
  const taps = new Float64Array(2 * TAPS_PER_SIDE);
  const half = TAPS_PER_SIDE;
  let sum = 0;
  for (let k = 0; k < taps.length; k++) {
    const t = half - 0.5 - k; // distance in input samples from the half-sample point
    const r = t / (half + 0.5);
    const window = besselI0(KAISER_BETA * Math.sqrt(1 - r * r)) / besselI0(KAISER_BETA);
    taps[k] = (Math.sin(Math.PI * t) / (Math.PI * t)) * window;
    sum += taps[k]!;
  }
  for (let k = 0; k < taps.length; k++) taps[k] /= sum; // exact unity gain at DC
  return taps;
}

const SIDE_TAPS = halfSampleTaps().subarray(0, TAPS_PER_SIDE);
const CONTEXT = 2 * TAPS_PER_SIDE - 1;

export class HalfBandUpsampler {
  // window[0] is input TAPS_PER_SIDE - 1 samples before the next output pair's own sample
  #window = new Float32Array(TAPS_PER_SIDE - 1);
  #received = 0;
  #emitted = 0;

  /** Feeds input samples (any scale); returns the output that can be computed so far, in the same scale. */
  push(input: ArrayLike<number>): Float32Array {
    this.#received += input.length;
    const joined = new Float32Array(this.#window.length + input.length);
    joined.set(this.#window);
    joined.set(input, this.#window.length);
    return this.#run(joined, Math.max(0, joined.length - CONTEXT));
  }

  /** Ends the stream (treating what follows as silence) and returns the rest: 2× input in total. */
  flush(): Float32Array {
    const joined = new Float32Array(this.#window.length + TAPS_PER_SIDE);
    joined.set(this.#window);
    return this.#run(joined, this.#received - this.#emitted);
  }

  #run(joined: Float32Array, pairs: number): Float32Array {
    const out = new Float32Array(2 * pairs);
    const taps = SIDE_TAPS;
    for (let n = 0, lo = 0, hi = CONTEXT; n < pairs; n++, lo++, hi++) {
      // The taps are symmetric, so mirrored inputs share one multiplication; four running sums
      // (TAPS_PER_SIDE is a multiple of 4) keep the additions from waiting on each other.
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      for (let k = 0; k < TAPS_PER_SIDE; k += 4) {
        a += taps[k]! * (joined[lo + k]! + joined[hi - k]!);
        b += taps[k + 1]! * (joined[lo + k + 1]! + joined[hi - k - 1]!);
        c += taps[k + 2]! * (joined[lo + k + 2]! + joined[hi - k - 2]!);
        d += taps[k + 3]! * (joined[lo + k + 3]! + joined[hi - k - 3]!);
      }
      out[2 * n] = joined[n + TAPS_PER_SIDE - 1]!;
      out[2 * n + 1] = a + b + c + d;
    }
    this.#emitted += pairs;
    this.#window = joined.slice(pairs);
    return out;
  }
}

/** Whole-buffer convenience: exactly 2 × input.length samples. */
export function upsample2x(input: ArrayLike<number>): Float32Array {
  const upsampler = new HalfBandUpsampler();
  const head = upsampler.push(input);
  const tail = upsampler.flush();
  const out = new Float32Array(head.length + tail.length);
  out.set(head);
  out.set(tail, head.length);
  return out;
}
