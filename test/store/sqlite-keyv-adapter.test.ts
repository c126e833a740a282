import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import keyvTestSuite, { keyvIteratorTests } from '@keyv/test-suite';
import { Keyv } from 'keyv';
import * as vitest from 'vitest';
import { NodeSqliteKeyvAdapter } from '../../src/store/sqlite-keyv-adapter.ts';
import { removeTempDirs, tempDir } from './backends.ts';

const path = join(tempDir(), 'keyv.sqlite');
const db = new DatabaseSync(path);
const store = () => new NodeSqliteKeyvAdapter(db, { url: `sqlite://${path}` });

vitest.afterAll(() => {
  db.close();
  removeTempDirs();
});

// The suite is typed against its own copy of vitest; the API it calls (it, beforeEach, expect) is the same.
const suiteVitest = vitest as unknown as Parameters<typeof keyvTestSuite>[0];
keyvTestSuite(suiteVitest, Keyv, store);
keyvIteratorTests(suiteVitest, Keyv, store);

vitest.describe('NodeSqliteKeyvAdapter', () => {
  vitest.it('keeps data in the file for a later connection', async () => {
    await new Keyv({ store: store(), namespace: 'persist' }).set('greeting', { text: 'hello' });
    const second = new DatabaseSync(path);
    const reopened = new Keyv({ store: new NodeSqliteKeyvAdapter(second, { url: `sqlite://${path}` }), namespace: 'persist' });
    vitest.expect(await reopened.get('greeting')).toEqual({ text: 'hello' });
    second.close();
  });

  vitest.it('purgeExpired deletes only rows whose TTL has passed', async () => {
    const adapter = store();
    const keyv = new Keyv({ store: adapter, namespace: 'purge' });
    await keyv.set('old', 1, 1);
    await keyv.set('kept', 2);
    vitest.expect(adapter.purgeExpired(Date.now() + 10)).toBe(1);
    vitest.expect(await keyv.get('kept')).toBe(2);
  });
});
