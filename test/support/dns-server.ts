// Invariant: a real DNS server for tests, on a UDP port of 127.0.0.1, answering from a record
// table the test changes while it runs (dns-packet encodes and decodes the wire format). A name
// it has no record for answers NXDOMAIN; only loopback ever talks to it.
import { createSocket, type Socket } from 'node:dgram';
import * as dnsPacket from 'dns-packet';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  address: string;
  setTxt(name: string, values: string[]): void;
  setCname(name: string, target: string): void;
  setA(name: string, addresses: string[]): void;
  remove(name: string): void;
  /** Questions received, `TYPE name`. */
  queries: string[];
  close(): Promise<void>;
}

type Records = { TXT?: string[]; CNAME?: string; A?: string[] };

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, Records>();
  const queries: string[] = [];
  const socket: Socket = createSocket('udp4');
  const key = (name: string) => name.toLowerCase().replace(/\.$/, '');
  socket.on('message', (message, peer) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    queries.push(`${question.type} ${question.name}`);
    const r = records.get(key(question.name));
    const answers: dnsPacket.Answer[] = [];
    if (r?.CNAME && question.type !== 'CNAME') {
      // Only what the tests need: a CNAME is answered for its own type.
    }
    if (question.type === 'TXT') for (const v of r?.TXT ?? []) answers.push({ type: 'TXT', name: question.name, ttl: 1, data: v });
    if (question.type === 'CNAME' && r?.CNAME) answers.push({ type: 'CNAME', name: question.name, ttl: 1, data: r.CNAME });
    if (question.type === 'A') for (const a of r?.A ?? []) answers.push({ type: 'A', name: question.name, ttl: 1, data: a });
    const response = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (r === undefined ? 3 : 0),
      questions: query.questions,
      answers,
    });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  const upsert = (name: string, patch: Records) => records.set(key(name), { ...records.get(key(name)), ...patch });
  return {
    address: `127.0.0.1:${port}`,
    setTxt: (name, values) => upsert(name, { TXT: values }),
    setCname: (name, target) => upsert(name, { CNAME: target }),
    setA: (name, addresses) => upsert(name, { A: addresses }),
    remove: (name) => void records.delete(key(name)),
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
