declare module 'heic-decode' {
  interface DecodedHeic {
    width: number;
    height: number;
    /** RGBA, rows top to bottom, with the file's rotation and mirroring already applied. */
    data: Uint8ClampedArray;
  }
  function decode(options: { buffer: Uint8Array }): Promise<DecodedHeic>;
  export = decode;
}
