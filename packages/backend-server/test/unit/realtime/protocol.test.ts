import { describe, expect, it } from 'vitest';
import {
  decodeBinary,
  decodeText,
  encode,
  encodeUserBroadcast,
  userBroadcastJson,
} from '../../../src/realtime/protocol';

describe('Phoenix frames', () => {
  it('decodes both text encodings and rejects other shapes', () => {
    expect(decodeText('2.0.0', '["1","2","realtime:a","phx_join",{}]')).toEqual({
      joinRef: '1',
      ref: '2',
      topic: 'realtime:a',
      event: 'phx_join',
      payload: {},
    });
    expect(
      decodeText('1.0.0', '{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}'),
    ).toEqual({ joinRef: null, ref: '3', topic: 'phoenix', event: 'heartbeat', payload: {} });
    expect(decodeText('2.0.0', '{"topic":"x","event":"y"}')).toBeNull();
    expect(decodeText('1.0.0', '[null,null,"x","y",{}]')).toBeNull();
    expect(decodeText('2.0.0', 'not json')).toBeNull();
  });

  it('encodes replies and pushes per version', () => {
    expect(encode('2.0.0', '1', '2', 't', 'phx_reply', { status: 'ok' })).toBe(
      '["1","2","t","phx_reply",{"status":"ok"}]',
    );
    expect(JSON.parse(encode('1.0.0', '1', null, 't', 'system', {}))).toEqual({
      topic: 't',
      event: 'system',
      payload: {},
      ref: null,
    });
  });

  it('decodes the kind 3 frame realtime-js sends (observed bytes)', () => {
    const frame = Buffer.concat([
      Buffer.from([3, 1, 1, 14, 6, 0, 1]),
      Buffer.from('67realtime:room1cursor{"x":1}'),
    ]);
    const msg = decodeBinary(frame);
    expect(msg).toMatchObject({
      joinRef: '6',
      ref: '7',
      topic: 'realtime:room1',
      event: 'broadcast',
    });
    expect(msg?.broadcast.event).toBe('cursor');
    expect(Buffer.from(msg?.broadcast.payload ?? []).toString()).toBe('{"x":1}');
    expect(decodeBinary(Buffer.from([3, 9, 9]))).toBeNull();
    expect(decodeBinary(Buffer.from([4, 0, 0, 0, 0, 0, 1]))).toBeNull();
  });

  it('encodes kind 4 frames and their JSON form for v1 sockets', () => {
    const b = {
      event: 'cursor',
      encoding: 1 as const,
      payload: Buffer.from('{"x":1}'),
      metadata: '',
    };
    expect(encodeUserBroadcast('realtime:r', b)).toEqual(
      Buffer.concat([Buffer.from([4, 10, 6, 0, 1]), Buffer.from('realtime:rcursor{"x":1}')]),
    );
    expect(userBroadcastJson(b)).toEqual({ type: 'broadcast', event: 'cursor', payload: { x: 1 } });
    expect(userBroadcastJson({ ...b, encoding: 0 })).toBeNull();
  });
});
