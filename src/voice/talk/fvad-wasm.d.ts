declare module '@echogarden/fvad-wasm' {
  /** libfvad (WebRTC's VAD) compiled by Emscripten: the C functions, the allocator and the heap. */
  export interface FvadModule {
    _fvad_new(): number;
    _fvad_free(instance: number): void;
    _fvad_reset(instance: number): void;
    /** 0 (least aggressive) to 3 (most); 0 on success. */
    _fvad_set_mode(instance: number, mode: number): number;
    /** 8000, 16000, 32000 or 48000; 0 on success. */
    _fvad_set_sample_rate(instance: number, rate: number): number;
    /** 1 voice, 0 none, -1 for a frame that is not 10, 20 or 30 ms long. */
    _fvad_process(instance: number, frame: number, length: number): number;
    _malloc(bytes: number): number;
    _free(pointer: number): void;
    HEAP16: Int16Array;
  }
  function load(): Promise<FvadModule>;
  export default load;
}
