// Fairway dashboard: polls GET api/services once a second and updates one table per service in
// place (rows are created once and then only their cells change, so buttons stay clickable).
// Sparklines keep the last HISTORY samples per backend in memory; nothing is stored server-side.
'use strict';
(() => {
  const POLL_MS = 1000;
  const HISTORY = 300; // samples kept, one per poll: five minutes
  const MIN_SPAN = 60; // the sparkline's x axis spans at least this many samples (one minute)
  const TOKEN_KEY = 'fairway.adminToken';
  const SVG = 'http://www.w3.org/2000/svg';
  const SPARK_W = 120;
  const SPARK_H = 26;

  const $ = (id) => document.getElementById(id);
  const servicesEl = $('services');
  const statusEl = $('status');
  const messageEl = $('message');
  const forgetBtn = $('forget-token');
  const dialog = $('token-dialog');

  /** backend id -> { qps: number[], eps: number[] }, the last HISTORY samples of each */
  const backendHistory = new Map();
  /** service name -> { qps: number[] }, the sum over its backends */
  const serviceHistory = new Map();
  /** service name -> { section, facts, tbody, rows: Map(backend id -> row view) } */
  const views = new Map();

  // ---- small DOM helpers -------------------------------------------------------------------

  function el(tag, attrs = {}, ...children) {
    const node = tag.startsWith('svg:') ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === 'class') node.setAttribute('class', v);
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    node.append(...children);
    return node;
  }

  function fmtRate(v) {
    return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
  }

  function push(series, value) {
    series.push(Number.isFinite(value) ? value : 0);
    if (series.length > HISTORY) series.shift();
  }

  function seriesFor(map, key) {
    let h = map.get(key);
    if (!h) {
      h = { qps: [], eps: [] };
      map.set(key, h);
    }
    return h;
  }

  function forgetMissing(map, present) {
    for (const key of map.keys()) {
      if (!present.has(key)) map.delete(key);
    }
  }

  // ---- sparklines: one polyline (and its shaded area), newest sample at the right edge. The x
  // axis spans one minute until more is known, then widens to the whole HISTORY (five minutes).

  function sparkline(kind, label) {
    const line = el('svg:polyline');
    const area = el('svg:polygon');
    const svg = el('svg:svg', { viewBox: `0 0 ${SPARK_W} ${SPARK_H}`, preserveAspectRatio: 'none',
      role: 'img', 'aria-label': label }, area, line);
    const value = el('span', { class: 'spark-value ' + kind + '-value' }, '0');
    return { node: el('div', { class: 'spark ' + kind }, svg, value), line, area, value };
  }

  function drawSpark(spark, series, title) {
    const max = Math.max(1, ...series);
    const span = Math.max(MIN_SPAN, series.length);
    const step = SPARK_W / (span - 1);
    const x0 = (span - series.length) * step;
    const pts = series.map((v, i) =>
      `${(x0 + i * step).toFixed(1)},${(SPARK_H - 1 - (v / max) * (SPARK_H - 3)).toFixed(1)}`);
    spark.line.setAttribute('points', pts.join(' '));
    spark.area.setAttribute('points', pts.length
      ? `${x0.toFixed(1)},${SPARK_H} ${pts.join(' ')} ${SPARK_W},${SPARK_H}` : '');
    const last = series.length ? series[series.length - 1] : 0;
    spark.value.textContent = fmtRate(last);
    spark.node.title = `${title}: now ${fmtRate(last)}, peak ${fmtRate(Math.max(0, ...series))} ` +
      `over the last ${Math.round(series.length * POLL_MS / 1000)} s`;
  }

  // ---- one table per service ----------------------------------------------------------------

  function serviceView(s) {
    let view = views.get(s.name);
    if (view) return view;
    const facts = el('div', { class: 'facts' });
    const spark = sparkline('qps', 'service requests per second');
    const tbody = el('tbody');
    const head = el('tr', {}, ...[['Backend', 'c-backend'], ['State', 'c-state'], ['Active / capacity', 'c-active'],
      ['Weight', 'c-num'], ['Utilization', 'c-num'], ['Requests/s', 'c-spark'], ['Errors/s', 'c-spark'],
      ['Latency', 'c-num'], ['', 'c-action']].map(([t, cls]) => el('th', { class: cls }, t)));
    const section = el('section', { class: 'service', 'data-service': s.name },
      el('div', { class: 'service-head' }, el('h2', {}, s.name), facts,
        el('span', { class: 'fact' }, 'requests/s'), spark.node),
      el('table', {}, el('thead', {}, head), tbody));
    view = { section, facts, spark, tbody, rows: new Map() };
    views.set(s.name, view);
    servicesEl.append(section);
    return view;
  }

  function fact(label, value, cls = '') {
    return el('span', { class: 'fact ' + cls }, label + ' ', el('b', {}, String(value)));
  }

  function updateService(view, s) {
    view.facts.replaceChildren(
      fact('strategy', s.strategy),
      fact('waiting', s.waiting, s.waiting > 0 ? 'busy' : ''),
      fact('active', s.active),
      fact('subset: client', `${s.clientId} of ${s.clientCount}`),
      ...overloadFacts(s.name));
    drawSpark(view.spark, seriesFor(serviceHistory, s.name).qps, 'requests/s to ' + s.name);

    const ids = new Set(s.backends.map((b) => b.id));
    for (const [id, row] of view.rows) {
      if (!ids.has(id)) {
        row.tr.remove();
        view.rows.delete(id);
      }
    }
    for (const b of s.backends) {
      let row = view.rows.get(b.id);
      if (!row) {
        row = backendRow(s.name, b);
        view.rows.set(b.id, row);
        view.tbody.append(row.tr);
      }
      updateRow(row, b);
    }
  }

  function backendRow(service, b) {
    const state = el('span', { class: 'state' });
    const reason = el('span', { class: 'reason' });
    const source = el('span', { class: 'source', title: 'where the backend comes from: config, api or DNS discovery' });
    const fill = el('div', { class: 'bar-fill' });
    const barText = el('span', { class: 'bar-text active-text' });
    const weight = el('td', { class: 'num weight' });
    const utilization = el('td', { class: 'num utilization' });
    const latency = el('td', { class: 'num latency' });
    const qps = sparkline('qps', 'requests per second');
    const eps = sparkline('eps', 'errors per second');
    const button = el('button', { type: 'button', class: 'lame-duck-btn' });
    const row = { state: null, stateEl: state, reason, source, fill, barText, weight, utilization, latency, qps, eps, button };
    button.addEventListener('click', () => toggleLameDuck(b.id, row.state !== 'lame-duck', button));
    row.tr = el('tr', { 'data-service': service, 'data-backend': b.id },
      el('td', {}, el('span', { class: 'backend-id' }, b.id), el('span', { class: 'url' }, b.url), source),
      el('td', {}, state, reason),
      el('td', {}, el('div', { class: 'bar active-bar' }, fill, barText)),
      weight, utilization,
      el('td', {}, qps.node), el('td', {}, eps.node),
      latency,
      el('td', {}, button));
    return row;
  }

  function updateRow(row, b) {
    row.state = b.state;
    row.stateEl.textContent = b.state;
    row.stateEl.className = 'state ' + b.state;
    row.reason.textContent = b.reason || '';
    row.reason.title = b.reason || '';
    row.source.textContent = b.source || '';
    row.tr.classList.toggle('out-of-subset', !b.inSubset);
    row.tr.title = b.inSubset ? '' : 'not in this proxy\'s subset';

    const ratio = b.capacity > 0 ? b.active / b.capacity : 0;
    row.fill.style.width = Math.min(100, ratio * 100).toFixed(1) + '%';
    row.fill.className = 'bar-fill' + (ratio >= 1 ? ' full' : ratio >= 0.7 ? ' warm' : '');
    row.barText.textContent = `${b.active} / ${b.capacity}`;

    row.weight.textContent = b.weight.toFixed(2);
    row.utilization.textContent = Math.round(b.utilization * 100) + '%';
    row.latency.textContent = b.latencyMs.toFixed(1) + ' ms';

    const h = seriesFor(backendHistory, b.id);
    drawSpark(row.qps, h.qps, 'requests/s');
    drawSpark(row.eps, h.eps, 'errors/s');

    const lame = b.state === 'lame-duck';
    row.button.textContent = lame ? 'Resume' : 'Lame duck';
    row.button.classList.toggle('resume', lame);
    row.button.title = lame ? `DELETE /api/backends/${b.id}/lame-duck` : `POST /api/backends/${b.id}/lame-duck`;
  }

  function render(services) {
    // Samples first, once per backend even when several services list it.
    const backendIds = new Set();
    for (const s of services) {
      push(seriesFor(serviceHistory, s.name).qps, s.backends.reduce((sum, b) => sum + b.qps, 0));
      for (const b of s.backends) {
        if (backendIds.has(b.id)) continue;
        backendIds.add(b.id);
        const h = seriesFor(backendHistory, b.id);
        push(h.qps, b.qps);
        push(h.eps, b.eps);
      }
    }
    const names = new Set(services.map((s) => s.name));
    for (const [name, view] of views) {
      if (!names.has(name)) {
        view.section.remove();
        views.delete(name);
      }
    }
    forgetMissing(backendHistory, backendIds);
    forgetMissing(serviceHistory, names);
    for (const s of services) updateService(serviceView(s), s);
    statusEl.textContent = `updated ${new Date().toLocaleTimeString()} · ${services.length} services · ` +
      `${backendIds.size} backends`;
    statusEl.classList.remove('stale');
  }

  // ---- TLS listeners: handshakes/s, resumed/s and failures/s, each the change of its /metrics
  // counter since the previous poll (fairway_tls_*_total{listener="tls"}), per listener label.

  const TLS_METRIC = /^fairway_tls_(handshakes|resumed_handshakes|handshake_failures)_total\{([^}]*)\}\s+(\S+)/;
  /** [counter, cell class, sparkline colour, label] */
  const TLS_KINDS = [['handshakes', 'tls-handshakes', 'qps', 'TLS handshakes/s'],
    ['resumed_handshakes', 'tls-resumed', 'qps', 'resumed handshakes/s'],
    ['handshake_failures', 'tls-failures', 'eps', 'failed handshakes/s']];
  /** listener -> { tr, sparks, series, totals, last: counters of the previous poll, at: its time } */
  const tlsViews = new Map();

  function parseTls(text) {
    const out = new Map();
    for (const line of text.split('\n')) {
      const m = TLS_METRIC.exec(line);
      if (!m) continue;
      const listener = (/listener="([^"]*)"/.exec(m[2]) || [])[1] || 'tls';
      if (!out.has(listener)) out.set(listener, {});
      out.get(listener)[m[1]] = Number(m[3]);
    }
    return out;
  }

  function tlsView(listener) {
    let view = tlsViews.get(listener);
    if (view) return view;
    const sparks = TLS_KINDS.map(([, , kind, label]) => sparkline(kind, label));
    const totals = el('td', { class: 'tls-totals' });
    const tr = el('tr', { 'data-listener': listener }, el('td', { class: 'listener' }, listener),
      ...sparks.map((sp, i) => el('td', { class: TLS_KINDS[i][1] }, sp.node)),
      totals);
    view = { tr, sparks, series: TLS_KINDS.map(() => []), totals, last: null, at: 0 };
    tlsViews.set(listener, view);
    $('tls-rows').append(tr);
    return view;
  }

  function renderTls(counters, now) {
    $('tls').hidden = false;
    $('tls-none').hidden = counters.size > 0;
    $('tls-table').hidden = counters.size === 0;
    for (const [listener, view] of tlsViews) {
      if (!counters.has(listener)) {
        view.tr.remove();
        tlsViews.delete(listener);
      }
    }
    for (const [listener, c] of counters) {
      const view = tlsView(listener);
      TLS_KINDS.forEach(([key, , , label], i) => {
        const seconds = (now - view.at) / 1000;
        push(view.series[i], view.last && seconds > 0 ? Math.max(0, (c[key] - view.last[key]) / seconds) : 0);
        drawSpark(view.sparks[i], view.series[i], `${label} on ${listener}`);
      });
      view.totals.textContent = `${c.handshakes || 0} handshakes, ${c.resumed_handshakes || 0} resumed, ` +
        `${c.handshake_failures || 0} failed`;
      view.last = c;
      view.at = now;
    }
  }

  // Overload control per service, from /metrics: the adaptive throttle's refusal probability, and
  // refusals, sheds and retries per second since the previous poll.
  const OVERLOAD_METRIC = /^fairway_(throttle_reject_probability|throttled_total|requests_shed_total|retries_total)\{service="([^"]*)"\}\s+(\S+)/;
  /** service -> { now: counters of this poll, last: of the previous, at, lastAt } */
  const overload = new Map();

  function parseOverload(text, now) {
    for (const line of text.split('\n')) {
      const m = OVERLOAD_METRIC.exec(line);
      if (!m) continue;
      let o = overload.get(m[2]);
      if (!o) {
        o = { now: {}, last: null, at: now, lastAt: now };
        overload.set(m[2], o);
      }
      if (o.at !== now) {
        o.last = o.now;
        o.lastAt = o.at;
        o.now = {};
        o.at = now;
      }
      o.now[m[1]] = Number(m[3]);
    }
  }

  function overloadFacts(service) {
    const o = overload.get(service);
    if (!o) return [];
    const rate = (key) => {
      const seconds = (o.at - o.lastAt) / 1000;
      return o.last && seconds > 0 ? Math.max(0, ((o.now[key] || 0) - (o.last[key] || 0)) / seconds) : 0;
    };
    const p = o.now.throttle_reject_probability || 0;
    const throttled = rate('throttled_total');
    const shed = rate('requests_shed_total');
    return [fact('throttle', `${(p * 100).toFixed(p > 0 && p < 0.01 ? 1 : 0)}%`, p > 0 ? 'busy' : ''),
      fact('throttled/s', fmtRate(throttled), throttled > 0 ? 'busy' : ''),
      fact('shed/s', fmtRate(shed), shed > 0 ? 'busy' : ''),
      fact('retries/s', fmtRate(rate('retries_total')))];
  }

  async function refreshTls() {
    try {
      const res = await fetch('metrics', { cache: 'no-store' });
      if (res.ok) {
        const text = await res.text();
        const now = performance.now();
        parseOverload(text, now);
        renderTls(parseTls(text), now);
      }
    } catch (e) {
      // the services poll already reports an unreachable admin API
    }
  }

  async function refresh() {
    refreshTls();
    try {
      const res = await fetch('api/services', { cache: 'no-store' });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      render(await res.json());
    } catch (e) {
      statusEl.textContent = `admin API unreachable (${e.message}); retrying every second`;
      statusEl.classList.add('stale');
    }
  }

  async function pollForever() {
    await refresh();
    setTimeout(pollForever, POLL_MS);
  }

  // ---- lame duck, with the admin token asked once per tab -----------------------------------

  let messageTimer;
  /** Shows a banner; errors stay until the next message, confirmations go after eight seconds. */
  function showMessage(text, ok = false) {
    messageEl.textContent = text;
    messageEl.classList.toggle('ok', ok);
    messageEl.hidden = false;
    clearTimeout(messageTimer);
    if (ok) messageTimer = setTimeout(() => { messageEl.hidden = true; }, 8000);
  }

  function askToken(question) {
    return new Promise((resolve) => {
      $('token-question').textContent = question;
      $('token-input').value = '';
      dialog.returnValue = '';
      dialog.addEventListener('close', () => {
        const token = $('token-input').value.trim();
        resolve(dialog.returnValue === 'send' && token ? token : null);
      }, { once: true });
      dialog.showModal();
      $('token-input').focus();
    });
  }

  async function toggleLameDuck(id, on, button) {
    const what = `${on ? 'put' : 'take'} ${id} ${on ? 'into' : 'out of'} lame duck`;
    let token = sessionStorage.getItem(TOKEN_KEY) || await askToken(`Admin token to ${what}:`);
    while (token) {
      button.disabled = true;
      let res;
      try {
        res = await fetch(`api/backends/${encodeURIComponent(id)}/lame-duck`,
          { method: on ? 'POST' : 'DELETE', headers: { Authorization: 'Bearer ' + token } });
      } catch (e) {
        showMessage(`Could not ${what}: ${e.message}`);
        return;
      } finally {
        button.disabled = false;
      }
      if (res.status !== 401) {
        sessionStorage.setItem(TOKEN_KEY, token);
        forgetBtn.hidden = false;
        if (res.ok) showMessage(`${id}: ${on ? 'in lame duck, receives no new requests' : 'out of lame duck, serves again once its health check passes'}`, true);
        else showMessage(`Could not ${what}: ${res.status} ${(await res.text()).trim()}`);
        refresh();
        return;
      }
      sessionStorage.removeItem(TOKEN_KEY);
      forgetBtn.hidden = true;
      showMessage(`401 Unauthorized: the admin token was wrong, so ${id} was not changed.`);
      token = await askToken(`401: token rejected. Admin token to ${what}:`);
    }
  }

  $('token-cancel').addEventListener('click', () => dialog.close('cancel'));
  forgetBtn.hidden = !sessionStorage.getItem(TOKEN_KEY);
  forgetBtn.addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    forgetBtn.hidden = true;
    showMessage('Admin token forgotten; the next action asks for it again.', true);
  });
  $('window-minutes').textContent = String(HISTORY * POLL_MS / 60000);
  pollForever();
})();
