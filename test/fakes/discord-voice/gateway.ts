import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { GatewayConnection } from './gateway-connection.ts';
import type { SelfSignedCertificate } from './self-signed-certificate.ts';
import type { VoiceServerState } from './state.ts';

/** The voice websocket endpoint: TLS (clients connect to wss://{endpoint}?v=8) and gateway version 8 only. */
export class VoiceGateway {
  readonly connections = new Set<GatewayConnection>();
  private readonly server: Server;
  private readonly wss = new WebSocketServer({ noServer: true });

  constructor(state: VoiceServerState, certificate: SelfSignedCertificate) {
    this.server = createServer({ cert: certificate.certPem, key: certificate.keyPem }, (_request, response) => {
      response.writeHead(426, { 'content-type': 'text/plain' }).end('voice gateway: websocket only');
    });
    this.server.on('upgrade', (request, socket, head) => {
      const version = new URL(request.url ?? '/', 'wss://voice.invalid').searchParams.get('v');
      if (version !== '8') {
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\nunsupported voice gateway version\n');
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        const connection = new GatewayConnection(ws, state);
        this.connections.add(connection);
        ws.once('close', () => this.connections.delete(connection));
      });
    });
  }

  listen(host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  async close(): Promise<void> {
    for (const connection of this.connections) connection.terminate('fake voice server closed');
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
