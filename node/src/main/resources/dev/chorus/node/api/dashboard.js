// The node dashboard: polls this node's read-only API and shows it. Every value that came over the network
// (peer IDs, addresses, announced metrics) is written with textContent, never parsed as HTML.
'use strict';

const REFRESH_MS = 2000;
const SVG = 'http://www.w3.org/2000/svg';
const CHART = { width: 600, height: 200, left: 40, right: 10, top: 10, bottom: 24 };
// The run's evaluations as fetched so far: after the first whole fetch, only newer points are asked for
// (/api/history?since=SEQ). The node thins old points; this copy is replaced by the node's whenever it grows past
// what the node itself keeps, or the node's sequence goes back (a restart).
const HISTORY_REFETCH_POINTS = 3000;
const fetchedHistory = { points: [], lastSeq: null };

async function fetchHistory() {
  const since = fetchedHistory.lastSeq === null ? '' : '?since=' + fetchedHistory.lastSeq;
  const h = await getJson('/api/history' + since);
  const evaluations = h.evaluations || [];
  if (fetchedHistory.lastSeq === null || typeof h.lastSeq !== 'number' || h.lastSeq < fetchedHistory.lastSeq) {
    fetchedHistory.points = evaluations;
  } else {
    // Two refreshes in flight at once ask for the same points: take each once.
    const last = fetchedHistory.points.length === 0 ? 0 : fetchedHistory.points[fetchedHistory.points.length - 1].seq;
    fetchedHistory.points = fetchedHistory.points.concat(evaluations.filter((e) => !(e.seq <= last)));
  }
  fetchedHistory.lastSeq = typeof h.lastSeq === 'number' ? h.lastSeq : null;
  if (fetchedHistory.points.length > HISTORY_REFETCH_POINTS) {
    fetchedHistory.lastSeq = null;
  }
  return { evaluations: fetchedHistory.points };
}

function byId(id) {
  return document.getElementById(id);
}

function show(id, value) {
  byId(id).textContent = value === null || value === undefined || value === '' ? '–' : String(value);
}

function fixed(x, digits) {
  return typeof x === 'number' && Number.isFinite(x) ? x.toFixed(digits) : '–';
}

function count(x) {
  return typeof x === 'number' ? x.toLocaleString('en-US') : '–';
}

function duration(seconds) {
  if (typeof seconds !== 'number') {
    return '–';
  }
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) {
    return d + 'd ' + h + 'h';
  }
  if (h > 0) {
    return h + 'h ' + m + 'm';
  }
  return m + 'm ' + (s % 60) + 's';
}

// The API's bearer token, when the node needs one: given once as /#token=TOKEN, kept in this tab's session storage
// and taken out of the address bar at once. A fragment is never sent to a server, nor in a Referer header, so the
// token reaches the node only in the Authorization header of the page's own requests.
const apiToken = (() => {
  const match = /^#token=([A-Za-z0-9_.~+\/=-]+)$/.exec(location.hash);
  if (match) {
    sessionStorage.setItem('chorus-api-token', match[1]);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem('chorus-api-token');
})();

async function getJson(path) {
  const headers = apiToken ? { Authorization: 'Bearer ' + apiToken } : {};
  const response = await fetch(path, { cache: 'no-store', headers });
  if (response.status === 401) {
    throw new Error(path + ' needs the API token: open this page as /#token=TOKEN (the token is in api.token_file)');
  }
  // /health answers 503 with a JSON body when the node has stopped training.
  if (!response.ok && !(path === '/health' && response.status === 503)) {
    throw new Error(path + ' answered HTTP ' + response.status);
  }
  return response.json();
}

function fill(tbodyId, rows) {
  const tbody = byId(tbodyId);
  const fresh = document.createDocumentFragment();
  for (const cells of rows) {
    const tr = document.createElement('tr');
    for (const cell of cells) {
      const td = document.createElement('td');
      td.textContent = cell === null || cell === undefined ? '–' : String(cell);
      tr.appendChild(td);
    }
    fresh.appendChild(tr);
  }
  tbody.replaceChildren(fresh);
}

function renderStatus(status, health) {
  const state = byId('state');
  const down = health.status !== 'up';
  state.textContent = down ? 'stopped: ' + (health.reason || 'unknown') : status.ready ? 'training' : 'starting';
  state.className = 'state ' + (down ? 'down' : 'up');
  show('node-id', status.peerId);
  // What another node puts in its network.bootstrap list to reach this one.
  show('listen-addrs', (status.listenAddrs || []).join('  '));
  show('consortium', status.consortium);
  show('strategy', status.strategy);
  show('model', status.model);
  show('backend', status.backend);
  show('uptime', duration(status.uptimeSeconds));
  show('version', count(status.modelVersion));
  show('steps', count(status.steps));
  show('accuracy', fixed(status.accuracy, 4));
  show('loss', fixed(status.loss, 4));
  show('train-loss', fixed(status.trainLoss, 4));
  show('learning-rate', fixed(status.learningRate, 5));
  show('peer-count', count(status.peerCount));
  show('member-count', count(status.memberCount));
  const a = status.averaging || {};
  fill('averaging', [
    ['rounds', count(a.rounds)],
    ['exchanges completed', count(a.exchanges)],
    ['exchanges failed', count(a.exchangeFailures)],
    ['pulls given up', count(a.exchangesAbandoned)],
    ['rounds skipped (rate per peer)', count(a.throttledRounds)],
    ['models received', count(a.received)],
    ['models merged', count(a.merged)],
    ['refused', count(a.refused)],
    ['mean staleness (versions)', fixed(a.stalenessMean, 1)],
    ['waited for own exchanges (s)', fixed(a.driftWaitSeconds, 1)],
    ['waited at round barriers (s)', fixed(a.barrierWaitSeconds, 1)],
    ['peers banned', count(a.peerBans)],
  ]);
}

function exchangeTime(peer) {
  if (typeof peer.exchangeSeconds !== 'number') {
    return null;
  }
  const time = peer.exchangeSeconds < 1 ? (peer.exchangeSeconds * 1000).toFixed(0) + ' ms' : fixed(peer.exchangeSeconds, 1) + ' s';
  return peer.slow ? time + ' (slow: left out of 9 rounds in 10)' : time;
}

function renderPeers(peers) {
  fill(
    'peers',
    (peers.peers || []).map((p) => [
      p.peerId,
      p.address,
      p.direction,
      count(p.merged),
      count(p.exchangeFailures),
      p.lastMergedVersion === undefined ? null : count(p.lastMergedVersion),
      exchangeTime(p),
    ]),
  );
}

function renderMembers(members) {
  fill(
    'members',
    (members.members || []).map((m) => [
      m.peerId,
      count(m.version),
      count(m.sampleCount),
      Object.entries(m.metrics || {})
        .map(([k, v]) => k + ' ' + (typeof v === 'number' ? fixed(v, 4) : v))
        .join(', '),
      m.announcedAt,
    ]),
  );
}

function renderMembership(members) {
  const m = members.membership || {};
  if (!m.enforced) {
    show('membership-note', 'not enforced: this node has no roster and admits every peer');
    fill('admitted', []);
    fill('refusals', []);
    return;
  }
  const refused = Object.entries(m.refused || {})
    .filter(([, n]) => n > 0)
    .map(([reason, n]) => reason + ' ' + count(n));
  const self = m.self || {};
  show(
    'membership-note',
    'enforced: ' + (m.roster || []).map((r) => r.organisation).join(', ') + ' on the roster; this node is a ' +
      self.role + ' of ' + self.organisation + ' until ' + self.notAfter + '; refused: ' +
      (refused.length === 0 ? 'none' : refused.join(', ')),
  );
  fill(
    'admitted',
    (m.peers || []).map((p) => [p.peerId, p.organisation, p.role, p.notAfter, p.revoked ? 'revoked' : 'no']),
  );
  fill(
    'refusals',
    (m.recentRefusals || []).map((r) => [r.at, r.peerId, r.address, r.reason, r.detail]),
  );
}

function svgElement(name, attributes, text) {
  const el = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attributes)) {
    el.setAttribute(k, String(v));
  }
  if (text !== undefined) {
    el.textContent = text;
  }
  return el;
}

function timeLabel(t, span) {
  const d = new Date(t);
  return span > 86400000 ? d.toLocaleString('en-GB') : d.toLocaleTimeString('en-GB');
}

function renderChart(fetched) {
  const evaluations = fetched.evaluations || [];
  const points = evaluations
    .map((e) => ({ t: Date.parse(e.time), y: e.accuracy }))
    .filter((p) => Number.isFinite(p.t) && typeof p.y === 'number' && Number.isFinite(p.y));
  const svg = byId('chart');
  const c = CHART;
  const w = c.width - c.left - c.right;
  const h = c.height - c.top - c.bottom;
  const parts = [];
  for (const y of [0, 0.25, 0.5, 0.75, 1]) {
    const py = c.top + h * (1 - y);
    parts.push(svgElement('line', { class: 'grid', x1: c.left, x2: c.left + w, y1: py, y2: py }));
    parts.push(svgElement('text', { x: 4, y: py + 4 }, y.toFixed(2)));
  }
  parts.push(svgElement('line', { class: 'axis', x1: c.left, x2: c.left + w, y1: c.top + h, y2: c.top + h }));
  if (points.length > 0) {
    const t0 = points[0].t;
    const span = Math.max(points[points.length - 1].t - t0, 1);
    const coordinates = points.map((p) => {
      const x = c.left + (w * (p.t - t0)) / span;
      const y = c.top + h * (1 - Math.min(Math.max(p.y, 0), 1));
      return x.toFixed(1) + ',' + y.toFixed(1);
    });
    parts.push(svgElement('polyline', { class: 'line', points: coordinates.join(' ') }));
    parts.push(svgElement('text', { x: c.left, y: c.height - 6 }, timeLabel(t0, span)));
    parts.push(
      svgElement(
        'text',
        { x: c.left + w, y: c.height - 6, 'text-anchor': 'end' },
        timeLabel(points[points.length - 1].t, span),
      ),
    );
  }
  svg.replaceChildren(...parts);
  // A point of the node's thinned past averages `count` evaluations.
  const count = evaluations.reduce((n, e) => n + (typeof e.count === 'number' ? e.count : 1), 0);
  byId('chart-note').textContent =
    points.length === 0
      ? 'no evaluation yet'
      : count + ' evaluations' + (count > points.length ? ' (older ones averaged into ' + points.length + ' points)' : '') +
        '; latest accuracy ' + fixed(points[points.length - 1].y, 4);
}

async function refresh() {
  try {
    const [status, health, peers, members, history] = await Promise.all([
      ...['/api/status', '/health', '/api/peers', '/api/members'].map(getJson),
      fetchHistory(),
    ]);
    renderStatus(status, health);
    renderPeers(peers);
    renderMembers(members);
    renderMembership(members);
    renderChart(history);
    byId('banner').hidden = true;
  } catch (e) {
    const state = byId('state');
    state.textContent = 'unreachable';
    state.className = 'state unreachable';
    const banner = byId('banner');
    banner.textContent = 'Cannot read the node\'s API (' + e.message + '); retrying every ' + REFRESH_MS / 1000 + ' s.';
    banner.hidden = false;
  }
  show('updated', new Date().toLocaleTimeString('en-GB'));
}

refresh();
setInterval(refresh, REFRESH_MS);
