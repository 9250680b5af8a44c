// A forward HTTP proxy for the e2e tests of virtual-hosted–style addressing: clients that cannot be given a resolver
// (rclone, the AWS CLI) reach `<bucket>.s3.test` through HTTP_PROXY, and the proxy sends every request to the test
// server with its Host unchanged. No /etc/hosts, no DNS. The hosts it was asked for are kept as evidence.

import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useResource } from '../helpers/store.js';

export interface HostProxy {
  /** `http://127.0.0.1:<port>`: the value of HTTP_PROXY. */
  url: string;
  /** Every Host header the proxy forwarded, in order. */
  hosts: string[];
}

// Hop-by-hop headers of the client-to-proxy connection; `expect` is answered by the proxy itself (Node sends 100
// Continue for it), so the upstream request carries its body straight away.
const HOP_BY_HOP = new Set(['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'expect']);

/**
 * The path and query of an absolute-form request target, exactly as sent (no URL normalisation: signatures cover it).
 */
function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  const slash = target.indexOf('/', target.indexOf('//') + 2);
  return slash < 0 ? '/' : target.slice(slash);
}

function forwardTo(port: () => number, hosts: string[]): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    hosts.push(req.headers.host ?? '');
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = request(
      { host: '127.0.0.1', port: port(), method: req.method, path: originForm(req.url ?? '/'), headers },
      (answer) => {
        const kept: string[] = [];
        for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) {
          const [name, value] = [answer.rawHeaders[i] as string, answer.rawHeaders[i + 1] as string];
          if (!HOP_BY_HOP.has(name.toLowerCase())) kept.push(name, value);
        }
        res.writeHead(answer.statusCode ?? 502, kept);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  };
}

/**
 * A proxy for the tests of the enclosing file or describe block, forwarding to the port `port()` gives at each request.
 */
export function useHostProxy(port: () => number): () => HostProxy {
  const running = useResource(
    'the host proxy',
    async () => {
      const hosts: string[] = [];
      const server: Server = createServer(forwardTo(port, hosts));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return { server, proxy: { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hosts } };
    },
    ({ server }) =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return () => running().proxy;
}
