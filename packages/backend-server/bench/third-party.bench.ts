/**
 * Third-party auth: the one verifier (`verifyAccessToken`, as REST, storage, realtime and
 * functions call it) on a token of a configured issuer (RS256, the issuer's JWKS already
 * fetched and cached) next to the project's own ES256 token, CPU time per token, cold (every
 * token new) and warm (the verified-token cache). Goal: third-party within 1.2× of our own.
 * The issuer is a local discovery + JWKS server (`startOpenIdIssuers`). Alternating slices,
 * best of rounds, each line with the load average.
 */
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import { DEFAULT_JWT_SECRET, generateSigningKey } from '../src/config/keys';
import { verifyAccessToken } from '../src/http/jwt';
import { SigningKeys } from '../src/http/signing-keys';
import { ThirdPartyAuth } from '../src/http/third-party';
import { startOpenIdIssuers } from '../src/testing/index';

const ROUNDS = 5;
const TOKENS = 2000;
const ISSUER = 'https://securetoken.google.com/bench-project';
const load = () => `load ${loadavg()[0]?.toFixed(1)}`;

const claims = () => {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: randomUUID(),
    role: 'authenticated',
    aud: 'authenticated',
    iat: now,
    exp: now + 3600,
  };
};

const cpuSince = (start: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(start);
  return used.user + used.system;
};

export default async function main(): Promise<void> {
  const op = await startOpenIdIssuers([ISSUER]);
  const issuer = op.issuers.get(ISSUER);
  if (!issuer) throw new Error('no issuer');
  const es = generateSigningKey('ES256');
  const keys = new SigningKeys(DEFAULT_JWT_SECRET, [es]);
  keys.thirdParty = new ThirdPartyAuth({
    firebase: { projectId: 'bench-project' },
    fetch: op.fetch,
  });
  const own = Array.from({ length: TOKENS }, () => keys.sign(claims()));
  const third = await Promise.all(Array.from({ length: TOKENS }, () => issuer.sign(claims())));
  // The first third-party token fetches the issuer's keys; every later one uses the cache.
  if (!(await verifyAccessToken(third[0] as string, keys)).ok) throw new Error('not verified');
  const fetches = issuer.jwksFetches;

  const cold = async (tokens: string[]) => {
    keys.verified.clear();
    const t = process.cpuUsage();
    for (const token of tokens) {
      if (!(await verifyAccessToken(token, keys)).ok) throw new Error('not verified');
    }
    return cpuSince(t) / tokens.length;
  };
  const warm = async (token: string) => {
    await verifyAccessToken(token, keys);
    const t = process.cpuUsage();
    for (let i = 0; i < 100_000; i++) await verifyAccessToken(token, keys);
    return cpuSince(t) / 100_000;
  };
  const times = { own: [] as number[], third: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    times.own.push(await cold(own));
    times.third.push(await cold(third));
  }
  const ownCold = Math.min(...times.own);
  const thirdCold = Math.min(...times.third);
  const ownWarm = await warm(own[0] as string);
  const thirdWarm = await warm(third[0] as string);
  console.log(
    `verifier CPU, cold (every token new): third-party RS256 (cached JWKS) ${thirdCold.toFixed(1)} µs vs own ES256 ${ownCold.toFixed(1)} µs per token: ratio ${(thirdCold / ownCold).toFixed(2)}× (goal ≤ 1.2×) [${load()}]`,
  );
  console.log(
    `verifier CPU, warm (cached token): third-party ${thirdWarm.toFixed(2)} µs vs own ${ownWarm.toFixed(2)} µs: ratio ${(thirdWarm / ownWarm).toFixed(2)}× [${load()}]`,
  );
  console.log(`JWKS fetches during the run: ${issuer.jwksFetches - fetches} (keys cached)`);
  keys.thirdParty.close();
  await op.close();
}
