import {
  CHECKSUM_ALGORITHMS,
  type ChecksumAlgorithm,
  runningChecksum,
  wellFormedChecksum,
} from './checksum';
import { S3ERR } from './errors';

/** The checksum a request declared, computed over its payload as it is read. */
export interface PayloadChecksum {
  update(data: Uint8Array): void;
  /** Compares with the sent value (header, or trailer read by then); BadDigest on a mismatch. */
  verify(): void;
  /** `[header, value]` once verified, for the answer. */
  result(): [string, string] | null;
}

const headerOf = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm}`;
const invalid = (header: string) => S3ERR.invalidRequest(`Value for ${header} header is invalid.`);

/**
 * The checksum of a request: an `x-amz-checksum-<algorithm>` header, or one announced by
 * `x-amz-trailer` whose value arrives in the aws-chunked trailers (`trailers`, filled by the
 * decoder). Algorithms we cannot compute (e.g. CRC64NVME) are not checked. Null when none.
 */
export function payloadChecksum(
  headers: Headers,
  trailers: ReadonlyMap<string, string>,
): PayloadChecksum | null {
  const sent = CHECKSUM_ALGORITHMS.filter((a) => headers.has(headerOf(a)));
  if (sent.length > 1) throw S3ERR.invalidRequest('Expecting a single x-amz-checksum- header');
  const trailer = headers.get('x-amz-trailer')?.trim().toLowerCase() ?? null;
  const trailed = CHECKSUM_ALGORITHMS.find((a) => headerOf(a) === trailer);
  if (sent.length === 1 && trailed) {
    throw S3ERR.invalidRequest('Expecting a single x-amz-checksum- header');
  }
  const algorithm = sent[0] ?? trailed;
  if (!algorithm) return null;
  const header = headerOf(algorithm);
  const fromHeader = headers.get(header);
  if (fromHeader !== null && !wellFormedChecksum(algorithm, fromHeader.trim())) {
    throw invalid(header);
  }
  const running = runningChecksum(algorithm);
  let verified: [string, string] | null = null;
  return {
    update: (data) => running.update(data),
    verify() {
      const expected = (fromHeader ?? trailers.get(header) ?? '').trim();
      if (!wellFormedChecksum(algorithm, expected)) throw invalid(header);
      const actual = running.digest();
      if (actual !== expected) {
        throw S3ERR.checksumMismatch(algorithm.toUpperCase());
      }
      verified = [header, actual];
    },
    result: () => verified,
  };
}
