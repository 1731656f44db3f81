import { describe, expect, it } from 'vitest';
import {
  normalizeAddress,
  resolveClientAddress,
  TrustedProxies,
} from '../../../src/http/client-address';

const proxies = new TrustedProxies(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);
const none = new TrustedProxies([]);

describe('client address', () => {
  it('is the socket address when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(resolveClientAddress('192.0.2.10', '203.0.113.7', proxies)).toBe('192.0.2.10');
    expect(resolveClientAddress('127.0.0.1', '203.0.113.7', none)).toBe('127.0.0.1');
    expect(resolveClientAddress('::ffff:192.0.2.10', undefined, proxies)).toBe('192.0.2.10');
    expect(resolveClientAddress(undefined, '203.0.113.7', proxies)).toBe('local');
  });

  it('is the right-most X-Forwarded-For hop that is not a trusted proxy when the peer is one', () => {
    expect(resolveClientAddress('10.1.2.3', '203.0.113.7', proxies)).toBe('203.0.113.7');
    expect(resolveClientAddress('::ffff:127.0.0.1', '203.0.113.7', proxies)).toBe('203.0.113.7');
    // What the client wrote itself (left of the hop our proxy added) is not believed.
    expect(resolveClientAddress('10.1.2.3', '198.51.100.1, 203.0.113.7', proxies)).toBe(
      '203.0.113.7',
    );
    // Proxies in a chain are skipped; ports and brackets are dropped.
    expect(resolveClientAddress('10.1.2.3', '203.0.113.7:5000, 10.9.9.9', proxies)).toBe(
      '203.0.113.7',
    );
    expect(resolveClientAddress('fd00::1', '[2001:db8::5]:443, fd12::3', proxies)).toBe(
      '2001:db8::5',
    );
    // Every hop trusted: the left-most one.
    expect(resolveClientAddress('10.1.2.3', '10.0.0.9, 10.0.0.8', proxies)).toBe('10.0.0.9');
    // No header: the proxy itself. A hop that is no address: the last trusted one.
    expect(resolveClientAddress('10.1.2.3', undefined, proxies)).toBe('10.1.2.3');
    expect(resolveClientAddress('10.1.2.3', 'unknown, 10.0.0.8', proxies)).toBe('10.0.0.8');
  });

  it('normalises IPv4-mapped IPv6 and ports', () => {
    expect(normalizeAddress(' ::FFFF:10.0.0.1 ')).toBe('10.0.0.1');
    expect(normalizeAddress('10.0.0.1:8080')).toBe('10.0.0.1');
    expect(normalizeAddress('[::1]:8080')).toBe('::1');
    expect(normalizeAddress('2001:DB8::1')).toBe('2001:db8::1');
  });

  it('refuses an entry that is neither an address nor a CIDR range, naming it', () => {
    for (const bad of ['proxy.local', '10.0.0.0/33', '10.0.0.0/x', '::1/129', '10.0.0.0/8/1', '']) {
      expect(() => new TrustedProxies([bad])).toThrow(`trustedProxies: "${bad}" is not`);
    }
  });
});
