import { describe, expect, it } from 'vitest';
import { B, dataRow, Reader, rowDescription, Writer } from '../../../src/db/wire';

/** A backend message as the server frames it. */
const frame = (type: number, body: Buffer) => {
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
};

describe('protocol framing', () => {
  it('reads the same messages whatever the chunk boundaries', () => {
    const big = Buffer.alloc(200_000, 7);
    const stream = Buffer.concat([
      frame(B.parseComplete, Buffer.alloc(0)),
      frame(B.dataRow, big),
      frame(B.commandComplete, Buffer.from('SELECT 1\0')),
      frame(B.ready, Buffer.from('I')),
    ]);
    for (const size of [1, 3, 5, 4096, 65_536, stream.length]) {
      const reader = new Reader();
      const got: { type: number; length: number }[] = [];
      for (let at = 0; at < stream.length; at += size) {
        for (const m of reader.push(stream.subarray(at, at + size))) {
          got.push({ type: m.type, length: m.body.length });
        }
      }
      expect(got).toEqual([
        { type: B.parseComplete, length: 0 },
        { type: B.dataRow, length: big.length },
        { type: B.commandComplete, length: 9 },
        { type: B.ready, length: 1 },
      ]);
    }
  });

  it('writes lengths, strings and NULL parameters as the protocol frames them', () => {
    const w = new Writer();
    w.begin(0x42).cstr('é').int16(2).value('ab').value(null).end();
    expect([...w.take()]).toEqual([
      0x42, 0, 0, 0, 19, 0xc3, 0xa9, 0, 0, 2, 0, 0, 0, 2, 0x61, 0x62, 0xff, 0xff, 0xff, 0xff,
    ]);
    expect(w.length).toBe(0);
  });

  it('turns rows into the values the Database contract promises', () => {
    const desc = new Writer().int16(4);
    for (const [name, type] of [
      ['b', 16],
      ['i', 23],
      ['j', 3802],
      ['t', 20],
    ] as const) {
      desc.cstr(name).int32(0).int16(0).int32(type).int16(-1).int32(-1).int16(0);
    }
    const fields = rowDescription(desc.take());
    const row = new Writer().int16(4).value('t').value('42').value('{"a":[1]}').value(null);
    expect(dataRow(row.take(), fields)).toEqual({ b: true, i: 42, j: { a: [1] }, t: null });
  });
});
