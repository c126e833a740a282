import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const mainFile = fileURLToPath(new URL('./main.ts', import.meta.url));

describe('npm run emulator', () => {
  it('prints a base URL and key that work, with flags for key and pace', async () => {
    const child = spawn(process.execPath, [mainFile, '--port', '0', '--key', 'dev-key', '--pace', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('API key:')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`emulator exited with ${code}: ${out}`)));
      });
      const base = /Base URL: (\S+)/.exec(out)![1]!;
      expect(out).toContain('API key:  dev-key');
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'api-key': 'dev-key' },
        body: JSON.stringify({ model: 'svc-v2-flash', messages: [{ role: 'user', content: 'ping' }] }),
      });
      expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content).toBe('Echo: ping');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
