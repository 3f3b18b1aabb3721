// Message compression by hand-counted sizes: which names become pointers, which stay whole.
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { compressMessage } from './compress.js';

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
/** A name's labels as they go on the wire, without the root byte. */
const labels = (name: string): string => hex(Uint8Array.from(name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)])));
const decode = (bytes: Uint8Array): dnsPacket.DecodedPacket => dnsPacket.decode(Buffer.from(bytes));
/** A decoded message without the fields that hold offsets or sizes. */
const content = (bytes: Uint8Array): unknown => {
  const { questions, answers, authorities, additionals, flags, id } = decode(bytes);
  return { questions, answers, authorities, additionals, flags, id };
};

const rr = { ttl: 60, class: 'IN' as const };
const message: dnsPacket.Packet = {
  type: 'response',
  id: 7,
  flags: dnsPacket.AUTHORITATIVE_ANSWER,
  questions: [{ name: 'a.example', type: 'MX', class: 'IN' }],
  answers: [
    { ...rr, name: 'a.example', type: 'MX', data: { preference: 10, exchange: 'mail.example' } },
    { ...rr, name: 'www.example', type: 'CNAME', data: 'mail.example' },
    { ...rr, name: '_s._tcp.example', type: 'SRV', data: { priority: 0, weight: 0, port: 1, target: 't.example' } },
  ],
  authorities: [{ ...rr, name: 'example', type: 'NS', data: 'ns.example' }],
  additionals: [
    { ...rr, name: 't.example', type: 'A', data: '192.0.2.1' },
    { ...rr, name: '1.2.0.192.in-addr.arpa', type: 'PTR', data: 'a.example' },
  ],
};

describe('compressMessage', () => {
  it('points owner names and CNAME, MX, NS and PTR data at earlier names; an SRV target stays whole', () => {
    const plain = new Uint8Array(dnsPacket.encode(message));
    const out = compressMessage(plain, 65535);
    // Question at 12: a (2 bytes) at 12, example (8) at 14, root; type and class: ends at 27.
    // MX at 27: pointer 2, 10, preference 2, "mail" 5 + pointer 2 (mail.example is at 41) = 21.
    // CNAME at 48: "www" 4 + pointer 2, 10, pointer to 41: 18.
    // SRV at 66: "_s" 3 "_tcp" 5 + pointer 2, 10, 6, t.example whole (at 92) 11: 37.
    // NS at 103: pointer 2, 10, "ns" 3 + pointer 2: 17.
    // A at 120: pointer to the SRV target (92) 2, 10, 4: 16.
    // PTR at 136: "1" "2" "0" "192" "in-addr" "arpa" and the root, 24, 10, pointer to 12: 36.
    expect(out).toHaveLength(172);
    expect(hex(out.subarray(27, 48))).toBe('c00c' + '000f0001' + '0000003c' + '0009' + '000a' + labels('mail') + 'c00e');
    expect(hex(out.subarray(48, 66))).toBe(labels('www') + 'c00e' + '00050001' + '0000003c' + '0002' + 'c029');
    expect(hex(out.subarray(66, 103))).toBe(labels('_s._tcp') + 'c00e' + '00210001' + '0000003c' + '0011' + '000000000001' + labels('t.example') + '00');
    expect(hex(out.subarray(103, 120))).toBe('c00e' + '00020001' + '0000003c' + '0005' + labels('ns') + 'c00e');
    expect(hex(out.subarray(120, 122))).toBe('c05c');
    expect(hex(out.subarray(out.length - 2))).toBe('c00c');
    expect(content(out)).toStrictEqual(content(plain));
  });

  it('names at 0x4000 or later are not pointed to: a pointer has 14 bits', () => {
    // A TXT record of 16,500 bytes pushes the rest past 0x4000.
    const big = { ...rr, name: 'x.example', type: 'TXT' as const, data: Array.from({ length: 66 }, () => 'y'.repeat(249)) };
    const plain = new Uint8Array(
      dnsPacket.encode({
        type: 'response',
        id: 1,
        questions: [{ name: 'example', type: 'A' }],
        answers: [big, { ...rr, name: 'b.example', type: 'A', data: '192.0.2.1' }, { ...rr, name: 'b.example', type: 'A', data: '192.0.2.2' }],
      }),
    );
    const out = compressMessage(plain, 65535);
    // Question 12 + 9 + 4 = 25; TXT: "x" 2 + pointer 2, 10, 66 strings of 250: 16,514, ends at 16,539.
    // Each A: "b" 2 + pointer to example (12) 2, 10, 4: b.example at 16,539 is past 0x4000 (16,384).
    const txtEnd = 25 + 2 + 2 + 10 + 66 * 250;
    expect(txtEnd).toBeGreaterThan(0x4000);
    expect(out).toHaveLength(txtEnd + 2 * 18);
    expect(hex(out.subarray(txtEnd, txtEnd + 4))).toBe(labels('b') + 'c00c');
    expect(hex(out.subarray(txtEnd + 18, txtEnd + 22))).toBe(labels('b') + 'c00c');
    expect(content(out)).toStrictEqual(content(plain));
  });

  it('over the limit: TC, the answers that fit with the OPT record, no authority or other additional records', () => {
    const opt: dnsPacket.Answer = { type: 'OPT', name: '.', udpPayloadSize: 512, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
    const plain = new Uint8Array(dnsPacket.encode({ ...message, additionals: [...(message.additionals ?? []), opt] }));
    // Header, question and the first two answers: 66 bytes; the SRV would end at 103; OPT 11.
    const out = compressMessage(plain, 66 + 11 + 36);
    expect(out).toHaveLength(66 + 11);
    const decoded = decode(out);
    expect(decoded.flag_tc).toBe(true);
    expect(decoded.answers?.map((a) => a.type)).toStrictEqual(['MX', 'CNAME']);
    expect(decoded.authorities).toStrictEqual([]);
    expect(decoded.additionals?.map((a) => a.type)).toStrictEqual(['OPT']);
    expect(hex(compressMessage(plain, 66 + 11 + 37))).toHaveLength(2 * (103 + 11));
  });

  it('throws on a message not laid out as an encoder writes it', () => {
    const plain = new Uint8Array(dnsPacket.encode(message));
    expect(() => compressMessage(plain.subarray(0, 11), 512)).toThrow(RangeError);
    expect(() => compressMessage(plain.subarray(0, plain.length - 1), 512)).toThrow(RangeError);
    expect(() => compressMessage(Uint8Array.from([...plain, 0]), 512)).toThrow(RangeError);
    const pointer = Uint8Array.from(plain);
    pointer[12] = 0xc0;
    expect(() => compressMessage(pointer, 512)).toThrow(RangeError);
  });
});
