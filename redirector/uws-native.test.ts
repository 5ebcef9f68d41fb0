// Invariant: the uWS loader takes the build that fits the runtime: @btc-vision/uwebsockets.js 20.57
// where glibc is 2.38 or newer (Debian 13: `npm run test:runtime` runs this file there, on Node 24),
// the 20.30 republish otherwise (Debian 12 with Node 20); either way a native one, and it says which.
import type { us_listen_socket } from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { uwsBuild } from './uws-native.ts';

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime ?? '0.0';
const [major = 0, minor = 0] = glibc.split('.').map(Number);
const newerFits = major > 2 || (major === 2 && minor >= 38);

describe('uWS loader', () => {
  it(`loads the build that fits Node ${process.versions.node} on glibc ${glibc}, native, and names it`, () => {
    const build = uwsBuild();
    expect(Function.prototype.toString.call(build.uws.App)).toContain('[native code]');
    if (newerFits) {
      expect(build.description).toMatch(/^uWebSockets\.js 20\.57\.0 \(@btc-vision\/uwebsockets\.js\), native for Node /);
    } else {
      expect(build.description).toMatch(
        /^uWebSockets\.js 20\.30\.0 \(@trufflesuite\/uws-js-unofficial\), native for Node .*; @btc-vision\/uwebsockets\.js does not load here \(GLIBC_2\.38 not found\)$/,
      );
    }
    expect(build.description).toContain(`Node ${process.versions.node} (ABI ${process.versions.modules})`);
  });

  it('one App serves a request on either build (listen, answer, close the listen socket)', async () => {
    const { uws } = uwsBuild();
    const app = uws.App().get('/*', (res) => void res.writeStatus('200 OK').end('ok'));
    const socket = await new Promise<us_listen_socket>((resolve, reject) =>
      app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed')))),
    );
    try {
      const r = await fetch(`http://127.0.0.1:${uws.us_socket_local_port(socket)}/x`);
      expect([r.status, await r.text()]).toEqual([200, 'ok']);
    } finally {
      uws.us_listen_socket_close(socket);
    }
  });
});
