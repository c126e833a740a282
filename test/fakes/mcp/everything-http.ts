import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const everything = fileURLToPath(import.meta.resolve('@modelcontextprotocol/server-everything/dist/index.js'));

export interface EverythingHttp {
  url: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as { port: number };
  probe.close();
  await once(probe, 'close');
  return port;
}

/** The reference "everything" server over Streamable HTTP, in a child process; resolves once it listens. */
export async function startEverythingHttp(): Promise<EverythingHttp> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  await new Promise<void>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`listening on port ${port}`)) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the everything server exited (${code}): ${stderr.slice(-300)}`)));
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      if (child.exitCode !== null) return;
      child.kill();
      await once(child, 'exit');
    },
  };
}
