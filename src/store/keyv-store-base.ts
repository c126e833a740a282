import type { Keyv } from 'keyv';
import type { Store, StoreKind } from './store.ts';

/** The key-value half of a Store, shared by every backend: plain delegation to Keyv. */
export abstract class KeyvStoreBase implements Pick<Store, 'kind' | 'keyv' | 'get' | 'set' | 'delete'> {
  abstract readonly kind: StoreKind;
  readonly keyv: Keyv;

  constructor(keyv: Keyv) {
    this.keyv = keyv;
    // Keyv reports backend failures as events; a store that cannot read or write must fail loudly instead.
    keyv.throwOnErrors = true;
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.keyv.get<T>(key);
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.keyv.set(key, value, ttlMs);
  }

  delete(key: string): Promise<boolean> {
    return this.keyv.delete(key);
  }
}
