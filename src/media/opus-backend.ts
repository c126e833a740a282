import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Which libopus does the work: `native` is the C library that @discordjs/opus builds (an optional
 * dependency: a prebuilt binary, or compiled at install), `wasm` the WebAssembly builds that always
 * install (opusscript to encode, opus-decoder to decode). Both are the same libopus release and give
 * the same packets; native takes about 2/3 of the time to decode and 2/3 to encode.
 */
export type OpusBackend = 'native' | 'wasm';

/** The part of @discordjs/opus's `OpusEncoder` Herald uses: one object holds an encoder and a decoder. */
export interface NativeOpusCodec {
  encode(pcm: Buffer): Buffer;
  /** s16le interleaved samples of one packet; throws on a packet libopus rejects. */
  decode(packet: Buffer): Buffer;
  applyEncoderCTL(ctl: number, value: number): void;
}

type NativeOpusConstructor = new (sampleRate: number, channels: number) => NativeOpusCodec;

let native: NativeOpusConstructor | null | undefined;

/** The native codec's constructor, or undefined when @discordjs/opus is not installed or did not build. */
export function nativeOpus(): NativeOpusConstructor | undefined {
  if (native === undefined) {
    try {
      native = (createRequire(import.meta.url)(nativeBinding()) as { OpusEncoder: NativeOpusConstructor }).OpusEncoder;
    } catch {
      native = null;
    }
  }
  return native ?? undefined;
}

/**
 * The package's entry point loads node-pre-gyp (200 ms and more) only to find the binary it installed;
 * the binary itself loads in under a millisecond. It lies in `prebuild/node-v<ABI>-napi-v<N>-<platform>-<arch>-<libc>/`
 * (the package's `binary.module_path`); when no such folder matches, the entry point does the finding.
 */
function nativeBinding(): string {
  const packageDir = dirname(createRequire(import.meta.url).resolve('@discordjs/opus/package.json'));
  const prebuild = join(packageDir, 'prebuild');
  const folder = existsSync(prebuild)
    ? readdirSync(prebuild).find(
        (name) => name.startsWith(`node-v${process.versions.modules}-napi-`) && name.includes(`-${process.platform}-${process.arch}-`),
      )
    : undefined;
  const binary = folder && join(prebuild, folder, 'opus.node');
  return binary && existsSync(binary) ? binary : '@discordjs/opus';
}

/** `native` when it loads, else `wasm`; asking for `wasm` always gets it. */
export function opusBackend(preferred?: OpusBackend): OpusBackend {
  if (preferred === 'wasm') return 'wasm';
  return nativeOpus() ? 'native' : 'wasm';
}
