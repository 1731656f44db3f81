/**
 * Search (`/search?q=…&type=…&owner=…&modified=…&size=…`): one search over the files and
 * folders I can see, by name and by content, best first, with the matching words marked and
 * the text around a content match. Results come as I type (after a short pause), a page at a
 * time ("More results"); the filters narrow them by type, owner, date and size. A folder
 * opens in the browser; a file opens its preview.
 */
import { unwrap, useBackendQuery, useUser } from '@app/backend-react';
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ErrorText } from '../components/ErrorText';
import { ViewNav } from '../components/ViewNav';
import { formatBytes, formatDate } from '../format';
import { t } from '../i18n';
import type { MessageKey } from '../i18n/messages/en';
import type { FileRow, FolderRow } from '../lib/api';
import { listAllFolders } from '../lib/api';
import type { DriveClient } from '../lib/client-types';
import {
  highlightParts,
  markName,
  SEARCH_PAGE,
  type SearchFilters,
  type SearchHit,
  searchItems,
} from '../lib/search-api';
import { useDrive } from '../lib/use-drive';
import { useEntryActions } from '../lib/use-entry-actions';

const Preview = lazy(() => import('../components/Preview'));

const DEBOUNCE_MS = 250;

const FILTERS = {
  type: {
    label: 'col.type',
    options: [
      ['', 'search.type.any'],
      ['folder', 'search.type.folder'],
      ['document', 'search.type.document'],
      ['pdf', 'search.type.pdf'],
      ['spreadsheet', 'search.type.spreadsheet'],
      ['presentation', 'search.type.presentation'],
      ['text', 'search.type.text'],
      ['image', 'search.type.image'],
      ['video', 'search.type.video'],
      ['audio', 'search.type.audio'],
    ],
  },
  owner: {
    label: 'search.owner',
    options: [
      ['', 'search.owner.any'],
      ['mine', 'search.owner.mine'],
      ['shared', 'views.shared'],
    ],
  },
  modified: {
    label: 'col.modified',
    options: [
      ['', 'search.modified.any'],
      ['day', 'search.modified.day'],
      ['week', 'search.modified.week'],
      ['month', 'search.modified.month'],
      ['year', 'search.modified.year'],
    ],
  },
  size: {
    label: 'col.size',
    options: [
      ['', 'search.size.any'],
      ['small', 'search.size.small'],
      ['medium', 'search.size.medium'],
      ['large', 'search.size.large'],
    ],
  },
} as const satisfies Record<
  string,
  { label: MessageKey; options: readonly (readonly [string, MessageKey])[] }
>;
type FilterName = keyof typeof FILTERS;

function Marked({ text }: { text: string }) {
  return (
    <>
      {highlightParts(text).map(([part, marked], i) =>
        marked ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string.
          <mark key={i}>{part}</mark>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string.
          <span key={i}>{part}</span>
        ),
      )}
    </>
  );
}

/** One page of results; says whether it was full (so there may be more). */
function ResultPage({
  q,
  filters,
  page,
  places,
  me,
  onOpen,
  onCount,
}: {
  q: string;
  filters: SearchFilters;
  page: number;
  places: Map<string, FolderRow>;
  me: string;
  onOpen: (hit: SearchHit) => void;
  onCount: (page: number, count: number) => void;
}) {
  const result = useBackendQuery<SearchHit[], DriveClient>(
    ['search', q, filters, page],
    (c) => searchItems(c, q, filters, page) as never,
  );
  const count = result.data?.length;
  useEffect(() => {
    if (count !== undefined) onCount(page, count);
  }, [count, page, onCount]);
  if (result.error) {
    return (
      <li>
        <ErrorText error={result.error} />
      </li>
    );
  }
  if (!result.data) {
    return page === 0 ? <li className="search-status">{t('search.searching')}</li> : null;
  }
  return (
    <>
      {result.data.map((hit) => {
        const where = hit.parent_id ? places.get(hit.parent_id)?.name : null;
        const details = [
          hit.kind === 'folder' ? t('type.folder') : formatBytes(Number(hit.size ?? 0)),
          t('item.modified', { date: formatDate(hit.updated_at) }),
          where
            ? t('search.inFolder', { name: where })
            : hit.owner_id === me
              ? t('search.inMyFiles')
              : null,
          hit.owner_id === me ? null : t('views.shared'),
        ].filter(Boolean);
        return (
          <li key={`${hit.kind}:${hit.id}`} className="search-hit">
            <button type="button" className="link" onClick={() => onOpen(hit)}>
              <span className={`icon-${hit.kind}`} aria-hidden="true" />
              <span className="search-name">
                <Marked text={markName(hit.name, q)} />
              </span>
            </button>
            {hit.snippet ? (
              <p className="search-snippet">
                <Marked text={hit.snippet} />
              </p>
            ) : null}
            <p className="search-details">{details.join(' · ')}</p>
          </li>
        );
      })}
    </>
  );
}

export default function SearchScreen() {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const client = useDrive();
  const actions = useEntryActions();
  const me = useUser()?.id ?? '';
  const [text, setText] = useState(params.get('q') ?? '');
  const [pages, setPages] = useState(1);
  const [counts, setCounts] = useState<Record<number, number>>({});
  const [preview, setPreview] = useState<FileRow | null>(null);
  const [openError, setOpenError] = useState<unknown>(null);
  const input = useRef<HTMLInputElement>(null);
  const filterId = useId();
  const q = (params.get('q') ?? '').trim();
  const filters: SearchFilters = {
    type: (params.get('type') || null) as SearchFilters['type'],
    owner: (params.get('owner') || null) as SearchFilters['owner'],
    modified: (params.get('modified') || null) as SearchFilters['modified'],
    size: (params.get('size') || null) as SearchFilters['size'],
  };
  const filterKey = JSON.stringify([q, filters]);

  const folders = useBackendQuery<FolderRow[], DriveClient>(
    ['folders-all'],
    (c) => listAllFolders(c) as never,
  );
  const places = new Map((folders.data ?? []).map((f) => [f.id, f]));

  // What I type reaches the address (and the search) after a short pause.
  useEffect(() => {
    if (text.trim() === (params.get('q') ?? '').trim()) return;
    const timer = setTimeout(() => {
      const next = new URLSearchParams(params);
      if (text.trim()) next.set('q', text);
      else next.delete('q');
      setParams(next, { replace: true });
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, params, setParams]);

  // A new query or filter starts from the first page.
  // biome-ignore lint/correctness/useExhaustiveDependencies: filterKey is what changes.
  useEffect(() => {
    setPages(1);
    setCounts({});
  }, [filterKey]);

  useEffect(() => {
    const el = input.current;
    if (el) {
      el.focus();
      el.setSelectionRange(el.value.length, el.value.length);
    }
  }, []);

  const setFilter = (name: FilterName, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    setParams(next, { replace: true });
  };

  const onCount = (page: number, count: number) =>
    setCounts((c) => (c[page] === count ? c : { ...c, [page]: count }));

  const open = async (hit: SearchHit) => {
    setOpenError(null);
    if (hit.kind === 'folder') {
      navigate(`/files/${hit.id}`);
      return;
    }
    try {
      const row = (await unwrap(
        client.from('files').select('*').eq('id', hit.id).single(),
      )) as FileRow;
      actions.opened(row);
      setPreview(row);
    } catch (error) {
      setOpenError(error);
    }
  };

  const lastCount = counts[pages - 1];
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const done = lastCount !== undefined && lastCount < SEARCH_PAGE;

  return (
    <main className="page search-page">
      <ViewNav />
      <h1>{t('search.title')}</h1>
      <search className="search-form" aria-label={t('search.filesFolders')}>
        <label className="search">
          <span className="sr-only">{t('files.searchLabel')}</span>
          <input
            ref={input}
            type="search"
            placeholder={t('search.filesFolders')}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <div className="search-filters">
          {(Object.keys(FILTERS) as FilterName[]).map((name) => (
            <label key={name} htmlFor={`${filterId}-${name}`}>
              <span>{t(FILTERS[name].label)}</span>
              <select
                id={`${filterId}-${name}`}
                value={params.get(name) ?? ''}
                onChange={(e) => setFilter(name, e.target.value)}
              >
                {FILTERS[name].options.map(([value, label]) => (
                  <option key={value} value={value}>
                    {t(label)}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </div>
      </search>
      <ErrorText error={openError ?? folders.error} />
      {q ? (
        <>
          <p className="search-status" aria-live="polite">
            {lastCount === undefined
              ? ''
              : total === 0
                ? t('search.nothing', { q })
                : t(done ? 'search.results' : 'search.resultsMore', { count: total, q })}
          </p>
          <ul className="search-results" aria-label={t('search.resultsLabel', { q })}>
            {Array.from({ length: pages }, (_, page) => (
              <ResultPage
                // biome-ignore lint/suspicious/noArrayIndexKey: a page is its index.
                key={`${filterKey}:${page}`}
                q={q}
                filters={filters}
                page={page}
                places={places}
                me={me}
                onOpen={(hit) => void open(hit)}
                onCount={onCount}
              />
            ))}
          </ul>
          {lastCount === SEARCH_PAGE ? (
            <button type="button" onClick={() => setPages((p) => p + 1)}>
              {t('search.more')}
            </button>
          ) : null}
        </>
      ) : (
        <p className="search-status">
          {t('search.hint')} <Link to="/files">{t('files.backHome')}</Link>
        </p>
      )}
      {preview ? (
        <Suspense fallback={null}>
          <Preview
            file={preview}
            onClose={() => setPreview(null)}
            onDownload={() => void actions.download(preview)}
          />
        </Suspense>
      ) : null}
    </main>
  );
}
