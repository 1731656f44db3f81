import { formatBytes } from './format';

const QUOTA_BYTES = 10 * 1024 ** 3;
const MAX_FILE_BYTES = 5 * 1024 ** 3;

export function App() {
  return (
    <main className="landing">
      <h1>Drive</h1>
      <p>
        Your files, in folders, on every device. Large uploads survive bad networks and reloads.
      </p>
      <ul aria-label="Limits">
        <li>Storage per person: {formatBytes(QUOTA_BYTES)}</li>
        <li>Largest file: {formatBytes(MAX_FILE_BYTES)}</li>
      </ul>
    </main>
  );
}
