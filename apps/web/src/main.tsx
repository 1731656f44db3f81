import { BackendProvider } from '@app/backend-react';
import { onlineManager } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './App';
import { initialLocale, loadLocale, useLocale } from './i18n';
import { createDriveClient } from './lib/client';
import { isOnline, onOnlineChange } from './offline/online';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
const client = createDriveClient();
// Queries wait for the network while it is away (the query cache would assume online until an
// `offline` event), so the listings kept for offline use stay on screen.
onlineManager.setOnline(isOnline());
onlineManager.setEventListener((setOnline) => onOnlineChange(() => setOnline(isOnline())));
/** A new language re-renders every screen in it (the route and the data stay). */
function Localized() {
  return <App key={useLocale()} />;
}
// The first paint waits for the language's catalogue (a small chunk of its own).
void loadLocale(initialLocale()).then(() =>
  createRoot(root).render(
    <StrictMode>
      <BackendProvider client={client}>
        <BrowserRouter>
          <Localized />
        </BrowserRouter>
      </BackendProvider>
    </StrictMode>,
  ),
);
// Offline and installable (src/offline/): the service worker, after the first paint.
if ('serviceWorker' in navigator) {
  addEventListener('load', () => {
    void import('./offline/register').then((m) => m.registerServiceWorker());
  });
}
