import { describe, expect, it } from 'vitest';
import { decode, encode } from '../../../src/realtime/serializer';

const hex = (b: ArrayBuffer) => Buffer.from(b).toString('hex');

describe('Phoenix frame codecs', () => {
  it('encodes vsn 2.0.0 pushes as arrays and vsn 1.0.0 as objects', () => {
    const msg = {
      join_ref: '6',
      ref: '6',
      topic: 'realtime:room1',
      event: 'phx_join',
      payload: { a: 1 },
    };
    expect(encode(msg, '2.0.0')).toBe('["6","6","realtime:room1","phx_join",{"a":1}]');
    expect(JSON.parse(encode(msg, '1.0.0') as string)).toEqual({
      topic: 'realtime:room1',
      event: 'phx_join',
      payload: { a: 1 },
      ref: '6',
      join_ref: '6',
    });
  });

  it('encodes a broadcast as the binary userBroadcastPush frame, byte for byte', () => {
    const frame = encode(
      {
        join_ref: '6',
        ref: '7',
        topic: 'realtime:room1',
        event: 'broadcast',
        payload: { type: 'broadcast', event: 'cursor', payload: { x: 1 } },
      },
      '2.0.0',
    ) as ArrayBuffer;
    const expected = Buffer.concat([
      Buffer.from([3, 1, 1, 14, 6, 0, 1]),
      Buffer.from('67realtime:room1cursor{"x":1}'),
    ]);
    expect(hex(frame)).toBe(expected.toString('hex'));
  });

  it('decodes the binary userBroadcast frame (JSON and binary payloads)', () => {
    const json = Buffer.concat([
      Buffer.from([4, 14, 6, 10, 1]),
      Buffer.from('realtime:room1cursor{"id":"a"}{"x":1}'),
    ]);
    expect(decode(new Uint8Array(json).buffer, '2.0.0')).toEqual({
      join_ref: null,
      ref: null,
      topic: 'realtime:room1',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'cursor', payload: { x: 1 }, meta: { id: 'a' } },
    });
    const bin = new Uint8Array(
      Buffer.concat([Buffer.from([4, 1, 1, 0, 0]), Buffer.from('te'), Buffer.from([9, 8])]),
    );
    const decoded = decode(bin.buffer, '2.0.0');
    expect(new Uint8Array(decoded?.payload.payload as ArrayBuffer)).toEqual(new Uint8Array([9, 8]));
  });

  it('decodes replies in both versions and ignores garbage', () => {
    expect(
      decode('[null,"3","phoenix","phx_reply",{"status":"ok","response":{}}]', '2.0.0'),
    ).toEqual({
      join_ref: null,
      ref: '3',
      topic: 'phoenix',
      event: 'phx_reply',
      payload: { status: 'ok', response: {} },
    });
    expect(decode('{"topic":"t","event":"e","payload":{"a":1},"ref":null}', '1.0.0')).toMatchObject(
      {
        topic: 't',
        event: 'e',
        payload: { a: 1 },
      },
    );
    expect(decode('not json', '2.0.0')).toBeUndefined();
    expect(decode(new Uint8Array([0, 1]).buffer, '2.0.0')).toBeUndefined();
  });
});
