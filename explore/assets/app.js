// gtformer explorer: the topic tree of a trained model as an outline, an
// icicle and a Poincaré disk, with topic and document panels, search,
// embedding of new text and exports. Plain JavaScript and SVG, written for
// gtformer; it talks to the HTTP API of `gtformer serve`, or, in a report
// written by `gtformer report`, reads the same API answers inlined in the
// page (the <script id="gtformer-data"> element).
'use strict';

(function () {
  const SVGNS = 'http://www.w3.org/2000/svg';
  // Colour classes (labels, or the tree's main branches).
  const PALETTE = ['#3b6fd1', '#d9562b', '#2f9e5a', '#a23fb5', '#c99a12', '#1c9aa8', '#d43f7a',
    '#6b7a1f', '#7a4e2d', '#5560a8', '#8c8c8c', '#e07b39'];

  const dataEl = document.getElementById('gtformer-data');
  const REPORT = dataEl ? JSON.parse(dataEl.textContent) : null;

  const state = { info: null, nodes: [], byId: new Map(), selected: null, view: 'icicle', layout: null, panelWords: 'weight' };

  // The server's token (gtformer serve --token), given once as /?token=…:
  // kept in this tab's sessionStorage (in memory when storage is off) and
  // taken out of the address bar, then sent with every API request.
  const TOKEN = REPORT ? '' : takeToken();

  function takeToken() {
    const u = new URL(location.href);
    const t = u.searchParams.get('token');
    if (!t) {
      try { return sessionStorage.getItem('gtformer-token') || ''; } catch (e) { return ''; }
    }
    try { sessionStorage.setItem('gtformer-token', t); } catch (e) { /* memory only */ }
    u.searchParams.delete('token');
    history.replaceState(null, '', u.pathname + u.search + u.hash);
    return t;
  }

  function apiHeaders(h) {
    if (TOKEN) h.Authorization = 'Bearer ' + TOKEN;
    return h;
  }

  class ApiError extends Error {
    constructor(status, message) { super(message); this.status = status; }
  }

  // ---- data access: the server's API, or the report's inlined answers ----

  // reportGet answers a GET from the report's data, whose keys are the
  // API paths without query and with ids unescaped.
  function reportGet(path) {
    const r = REPORT.responses;
    if (path in r) return r[path]; // an answer kept with its query (the link maps)
    const [raw, query] = path.split('?');
    const key = decodeURIComponent(raw);
    if (key === '/v1/search') {
      const q = (new URLSearchParams(query).get('q') || '').trim();
      const word = r['/v1/words/' + q.toLowerCase()] || null;
      const doc = r['/v1/documents/' + q] || null;
      return { query: q, word: word, document: doc ? { id: doc.id, label: doc.label || '', snippet: doc.text } : null };
    }
    if (!(key in r)) {
      throw new ApiError(404, 'not in this report: it holds ' + REPORT.sampled + ' of ' + REPORT.total +
        ' documents and the words among the topics\u2019 top ' + REPORT.words_per_topic + '. Run gtformer serve for everything.');
    }
    return r[key];
  }

  async function get(path) {
    if (REPORT) return reportGet(path);
    const res = await fetch(path, { headers: apiHeaders({ Accept: 'application/json' }) });
    const body = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) throw new ApiError(res.status, body.error || res.statusText);
    return body;
  }

  // getText answers a GET whose body is not JSON (the CSV export) as text.
  async function getText(path) {
    if (REPORT) return REPORT.responses[path];
    const res = await fetch(path, { headers: apiHeaders({}) });
    const text = await res.text();
    if (!res.ok) {
      let msg = text;
      try { msg = JSON.parse(text).error || text; } catch (e) { /* not JSON: the text itself */ }
      throw new ApiError(res.status, msg);
    }
    return text;
  }

  async function post(path, payload, method) {
    if (REPORT) throw new ApiError(501, 'embedding new text needs the server: run gtformer serve --model DIR');
    const res = await fetch(path, { method: method || 'POST', headers: apiHeaders({ 'Content-Type': 'application/json' }), body: JSON.stringify(payload) });
    const body = await res.json().catch(() => ({ error: res.statusText }));
    if (!res.ok) throw new ApiError(res.status, body.error || res.statusText);
    return body;
  }

  // ---- small DOM helpers ----

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'onclick') e.addEventListener('click', v);
      else if (k === 'text') e.textContent = v;
      // Through the CSSOM: the server's CSP refuses style attributes.
      else if (k === 'style') e.style.cssText = v;
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }

  function svg(tag, attrs, ...kids) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'onclick') e.addEventListener('click', v);
      else e.setAttribute(k, v);
    }
    for (const k of kids) if (k != null) e.append(k);
    return e;
  }

  function pct(x) { return (100 * x).toFixed(x < 0.001 ? 2 : 1) + '%'; }
  function words(node, k) { return node.words.slice(0, k).map(w => w.word).join(' '); }
  // name is a topic's label (the user's, or the automatic one), or its
  // top words from an answer without labels.
  function name(node) { return node.label || words(node, 4); }
  function setStatus(msg) { document.getElementById('status').textContent = msg || ''; }
  function showError(where, err) {
    where.replaceChildren(el('p', { class: 'error', text: err.message || String(err) }));
  }

  function topicLink(id, text) {
    return el('a', { class: 'link topic-link', 'data-topic': id, onclick: () => selectTopic(id), text: text });
  }
  function docLink(id, text) {
    return el('a', { class: 'link doc-link', 'data-doc': id, onclick: () => openDocument(id), text: text });
  }
  function crumbs(path) {
    const p = el('p', { class: 'crumbs' });
    path.forEach((id, k) => {
      if (k > 0) p.append(' \u203a ');
      const n = state.byId.get(id);
      p.append(topicLink(id, '#' + id + (n ? ' ' + name(n) : '')));
    });
    return p;
  }

  // ---- start ----

  async function start() {
    try {
      const [info, tree] = await Promise.all([get('/v1/info'), get('/v1/tree')]);
      state.info = info;
      state.nodes = tree.nodes;
      for (const n of tree.nodes) state.byId.set(n.id, n);
      document.getElementById('subtitle').textContent = (info.dataset || 'corpus') + ' \u00b7 ' +
        info.documents + ' documents \u00b7 ' + info.topics + ' topics in ' + info.levels + ' levels \u00b7 ' +
        info.geometry + ' (n = ' + info.dim + (info.geometry === 'hyperbolic' ? ', K = ' + info.curvature : '') + ')' +
        (REPORT ? ' \u00b7 report' : '');
      drawOutline();
      drawView();
      if (REPORT) {
        document.getElementById('embed-note').textContent = 'This is a report: embedding new text needs the server (gtformer serve).';
        document.getElementById('embed-button').disabled = true;
      }
      // The page's address may name the view and the topic to open:
      // #view=disk&topic=5 (for links and screenshots).
      const want = new URLSearchParams(location.hash.slice(1));
      if (want.get('view') === 'disk' || want.get('view') === 'links') state.view = want.get('view');
      state.linkLevel = Number(want.get('level')) || 1;
      const tid = Number(want.get('topic'));
      await selectTopic(want.has('topic') && state.byId.has(tid) ? tid : state.nodes[0].id);
      document.body.dataset.ready = 'true';
    } catch (err) {
      showError(document.getElementById('panel'), err);
    }
  }

  // ---- the outline ----

  function drawOutline() {
    const root = state.nodes[0];
    const build = (n) => {
      const li = el('li', { 'data-topic': n.id });
      const kids = n.children || [];
      const tog = el('span', { class: 'toggle', text: kids.length ? '\u25be' : '' });
      if (kids.length) tog.addEventListener('click', () => {
        li.classList.toggle('collapsed');
        tog.textContent = li.classList.contains('collapsed') ? '\u25b8' : '\u25be';
      });
      const label = el('span', { class: 'topic-label', 'data-topic': n.id, title: 'topic ' + n.id + ': ' + n.docs + ' documents' },
        el('span', { class: 'share', text: '#' + n.id + ' ' + pct(n.share) + ' ' }), name(n), el('span', { class: 'share', text: ' ' + words(n, 3) }));
      label.addEventListener('click', () => selectTopic(n.id));
      li.append(tog, label);
      if (kids.length) li.append(el('ul', { class: 'tree' }, ...kids.map(c => build(state.byId.get(c)))));
      return li;
    };
    document.getElementById('outline').replaceChildren(el('ul', { class: 'tree' }, build(root)));
  }

  // ---- the views ----

  function drawView() {
    for (const b of document.querySelectorAll('#tabs .tab')) b.classList.toggle('active', b.dataset.view === state.view);
    if (state.view === 'disk') return drawDisk();
    if (state.view === 'links' && links) return links.draw();
    drawIcicle();
    return Promise.resolve();
  }

  // subtree share: a topic's own share plus its descendants'.
  function subtreeShares() {
    const total = new Map();
    const walk = (id) => {
      const n = state.byId.get(id);
      let s = n.share;
      for (const c of n.children || []) s += walk(c);
      total.set(id, s);
      return s;
    };
    walk(state.nodes[0].id);
    return total;
  }

  // The icicle: one column per level; a topic's height is its subtree's
  // share of the words, its children stacked inside it (the rest of its
  // height is its own share).
  function drawIcicle() {
    const W = 900, H = 560;
    const levels = state.info.levels;
    const colW = W / levels;
    const sub = subtreeShares();
    const root = state.nodes[0];
    const g = svg('g', { 'font-family': 'system-ui, sans-serif', 'font-size': '11' });
    const place = (id, y0, h, level) => {
      const n = state.byId.get(id);
      const sel = state.selected === id;
      const rect = svg('rect', { x: level * colW + 1, y: y0 + 0.5, width: colW - 2, height: Math.max(h - 1, 0.5),
        fill: level === 0 ? '#dfe5ef' : PALETTE[branchOf(id) % PALETTE.length], 'fill-opacity': level === 0 ? 1 : 0.25 + 0.6 / level,
        stroke: sel ? '#1d2433' : '#ffffff', 'stroke-width': sel ? 2 : 1, class: 'icicle-node', 'data-topic': id, cursor: 'pointer' },
        svg('title', {}, '#' + id + ' (' + pct(n.share) + ' own, ' + pct(sub.get(id)) + ' with subtopics): ' + words(n, 10)));
      rect.addEventListener('click', () => selectTopic(id));
      g.append(rect);
      if (h >= 13) {
        const t = svg('text', { x: level * colW + 6, y: y0 + Math.min(h / 2, 14) + 4, fill: '#1d2433', 'pointer-events': 'none' });
        t.textContent = '#' + id + ' ' + name(n);
        if (h >= 28) {
          const s = svg('tspan', { x: level * colW + 6, dy: 13, fill: '#5a6478' });
          s.textContent = pct(sub.get(id)) + ' \u00b7 ' + n.docs + ' docs';
          t.append(s);
        }
        g.append(t);
        clip(t, colW - 10);
      }
      let y = y0;
      for (const c of n.children || []) {
        const ch = h * sub.get(c) / sub.get(id);
        place(c, y, ch, level + 1);
        y += ch;
      }
    };
    place(root.id, 0, H, 0);
    const s = svg('svg', { xmlns: SVGNS, viewBox: '0 0 ' + W + ' ' + H, id: 'view-svg', role: 'img' },
      svg('rect', { x: 0, y: 0, width: W, height: H, fill: '#ffffff' }), g);
    document.getElementById('view').replaceChildren(s);
    document.getElementById('view-note').textContent = 'Icicle: one column per level; height = share of the corpus\u2019s words held by the topic and its subtopics. Click a topic.';
  }

  // clip shortens an SVG text's first line to fit a width (characters of
  // about 6 px at 11 px).
  function clip(t, width) {
    const max = Math.max(3, Math.floor(width / 6.2));
    const node = t.firstChild;
    if (node && node.nodeType === 3 && node.data.length > max) node.data = node.data.slice(0, max - 1) + '\u2026';
  }

  // branchOf returns the index of the level-1 ancestor of a topic among the
  // root's children (the colour of its branch).
  function branchOf(id) {
    let n = state.byId.get(id);
    const root = state.nodes[0];
    while (n && n.parent !== root.id && n.parent >= 0) n = state.byId.get(n.parent);
    if (!n || n.parent < 0) return 0;
    return Math.max(0, root.children.indexOf(n.id));
  }

  async function drawDisk() {
    const view = document.getElementById('view');
    if (!state.layout) {
      try {
        state.layout = await get('/v1/layout');
      } catch (err) {
        showError(view, err);
        return;
      }
    }
    if (state.view !== 'disk') return;
    const L = state.layout;
    const S = 640, R = 300, C = S / 2;
    const X = (x) => C + R * x, Y = (y) => C - R * y;
    const s = svg('svg', { xmlns: SVGNS, viewBox: '0 0 ' + S + ' ' + S, id: 'view-svg', role: 'img', 'font-family': 'system-ui, sans-serif', 'font-size': '11' });
    s.append(svg('rect', { x: 0, y: 0, width: S, height: S, fill: '#ffffff' }));
    s.append(svg('circle', { cx: C, cy: C, r: R, fill: '#f7f8fb', stroke: '#b8bfcc' }));
    // Density of all documents: grey cells inside the disk.
    const d = L.density, cell = 2 * R / d.size;
    let peak = 0;
    for (const c of d.counts) peak = Math.max(peak, c);
    const dens = svg('g', { class: 'density' });
    for (let gy = 0; gy < d.size; gy++) {
      for (let gx = 0; gx < d.size; gx++) {
        const c = d.counts[gy * d.size + gx];
        if (!c) continue;
        dens.append(svg('rect', { x: C - R + gx * cell, y: C + R - (gy + 1) * cell, width: cell, height: cell,
          fill: '#1d2433', 'fill-opacity': (0.05 + 0.35 * Math.sqrt(c / peak)).toFixed(3) }));
      }
    }
    s.append(dens);
    // The sampled documents, coloured by class.
    const docs = svg('g', { class: 'docs' });
    for (const p of L.docs) {
      const dot = svg('circle', { cx: X(p.x).toFixed(1), cy: Y(p.y).toFixed(1), r: 2.2, fill: p.c >= 0 ? PALETTE[p.c % PALETTE.length] : '#8c8c8c',
        'fill-opacity': 0.7, class: 'doc-point', 'data-doc': p.id, cursor: 'pointer' },
      svg('title', {}, 'document ' + p.id + (p.c >= 0 && L.colors[p.c] ? ' (' + L.colors[p.c] + ')' : '')));
      dot.addEventListener('click', () => openDocument(p.id));
      docs.append(dot);
    }
    s.append(docs);
    // Tree edges and topics.
    const pos = new Map(L.topics.map(t => [t.id, t]));
    const edges = svg('g', { stroke: '#1d2433', 'stroke-opacity': 0.45, 'stroke-width': 1 });
    for (const n of state.nodes) {
      if (n.parent < 0) continue;
      const a = pos.get(n.parent), b = pos.get(n.id);
      edges.append(svg('line', { x1: X(a.x), y1: Y(a.y), x2: X(b.x), y2: Y(b.y) }));
    }
    s.append(edges);
    const tops = svg('g', { class: 'topics' });
    for (const t of L.topics) {
      const n = state.byId.get(t.id);
      const sel = state.selected === t.id;
      const grp = svg('g', { class: 'topic-point', 'data-topic': t.id, cursor: 'pointer' },
        svg('circle', { cx: X(t.x), cy: Y(t.y), r: sel ? 7 : 5, fill: sel ? '#ffd21f' : '#ffffff', stroke: '#1d2433', 'stroke-width': 1.5 }),
        svg('title', {}, '#' + t.id + ': ' + words(n, 8)));
      const label = svg('text', { x: X(t.x) + 8, y: Y(t.y) + 4, fill: '#1d2433', stroke: '#ffffff', 'stroke-width': 3, 'paint-order': 'stroke' });
      label.textContent = '#' + t.id + ' ' + name(n);
      grp.append(label);
      grp.addEventListener('click', () => selectTopic(t.id));
      tops.append(grp);
    }
    s.append(tops);
    view.replaceChildren(s);
    const legend = el('div', { class: 'legend' }, (L.color_by === 'label' ? 'Documents by label:' : 'Documents by branch:'));
    L.colors.forEach((name, k) => legend.append(el('span', { class: 'sw', style: 'background:' + PALETTE[k % PALETTE.length] }), name));
    view.append(legend);
    document.getElementById('view-note').textContent = 'Poincaré disk: ' + L.docs.length + ' of ' + L.documents_total +
      ' documents drawn (a fixed sample), grey cells the density of all. ' + L.method + '.';
  }

  // ---- panels ----

  function select(id) {
    state.selected = id;
    for (const e of document.querySelectorAll('#outline .topic-label')) e.classList.toggle('selected', Number(e.dataset.topic) === id);
  }

  async function selectTopic(id) {
    select(id);
    await drawView();
    const panel = document.getElementById('panel');
    try {
      const t = await get('/v1/topics/' + id + '?limit=20');
      renderTopic(panel, t);
    } catch (err) {
      showError(panel, err);
    }
  }

  // mark records what the panel shows (data-kind, data-id), so that a
  // test or a script can wait for a panel to be replaced.
  function mark(panel, kind, id) {
    panel.dataset.kind = kind;
    panel.dataset.id = id;
  }

  function wordTable(list, key) {
    const top = Math.max(...list.map(w => w[key]), 1e-12);
    return el('table', { class: 'words' }, ...list.map(w => el('tr', {},
      el('td', { text: w.word }),
      el('td', { class: 'bar' }, el('span', { style: 'width:' + (100 * w[key] / top).toFixed(1) + '%' })),
      el('td', { class: 'share', text: key === 'lift' ? w.lift.toFixed(2) + '\u00d7' : (100 * w.weight).toFixed(2) + '%' }))));
  }

  function renderTopic(panel, t) {
    const head = el('div', {},
      crumbs(t.path),
      el('h2', { id: 'panel-title', text: 'Topic #' + t.id }),
      el('p', { id: 'topic-name', text: name(t) + (t.label_source === 'user' ? '' : ' (automatic label)') }),
      state.info.edits && window.gtformerRename ? window.gtformerRename(t, (label) => post('/v1/topics/' + t.id + '/label', { label: label }, 'PUT'), renamed) : null,
      el('p', { class: 'note', text: 'level ' + t.level + ' \u00b7 ' + pct(t.share) + ' of the words \u00b7 ' + t.docs + ' documents on paths through it' }));
    const wordsBox = el('div', { id: 'topic-words' });
    const drawWords = () => {
      const lift = state.panelWords === 'lift' && t.words_by_lift.length > 0;
      wordsBox.replaceChildren(wordTable(lift ? t.words_by_lift : t.words_by_weight, lift ? 'lift' : 'weight'));
      bw.classList.toggle('active', !lift);
      bl.classList.toggle('active', lift);
    };
    const bw = el('button', { type: 'button', id: 'words-weight', text: 'by weight' });
    const bl = el('button', { type: 'button', id: 'words-lift', text: t.parent < 0 ? 'by lift (no parent)' : 'by lift over #' + t.parent });
    // The root has no parent to be compared with: no words by lift.
    if (!t.words_by_lift.length) bl.disabled = true;
    bw.addEventListener('click', () => { state.panelWords = 'weight'; drawWords(); });
    bl.addEventListener('click', () => { state.panelWords = 'lift'; drawWords(); });
    const subs = el('div', {});
    if (t.subtopics.length) {
      subs.append(el('h3', { text: 'Subtopics' }), el('ul', {}, ...t.subtopics.map(c =>
        el('li', {}, topicLink(c.id, '#' + c.id), ' ', el('span', { class: 'share', text: pct(c.share) + ' ' }), name(c)))));
    }
    const list = el('ol', { class: 'docs', id: 'topic-docs' });
    const addDocs = (docs) => {
      for (const d of docs) {
        list.append(el('li', {}, docLink(d.id, d.id), ' ', el('span', { class: 'share', text: '\u03b8 ' + d.theta.toFixed(3) }),
          d.label ? el('span', { class: 'pill', text: d.label }) : null, el('br'), el('span', { class: 'snippet', text: d.snippet })));
      }
    };
    addDocs(t.documents);
    const more = el('div', {});
    const addMore = (next) => {
      more.replaceChildren();
      if (!next || REPORT) return;
      const b = el('button', { type: 'button', text: 'more documents' });
      b.addEventListener('click', async () => {
        try {
          const page = await get('/v1/topics/' + t.id + '?limit=20&cursor=' + encodeURIComponent(next));
          addDocs(page.documents);
          addMore(page.next_cursor);
        } catch (err) { showError(more, err); }
      });
      more.append(b);
    };
    addMore(t.next_cursor);
    mark(panel, 'topic', t.id);
    const byField = facets ? facets.section(t) : null;
    panel.replaceChildren(...[head, el('h3', { text: 'Top words' }), el('div', {}, bw, ' ', bl), wordsBox, subs, byField,
      el('h3', { text: 'Representative documents (highest \u03b8, ' + t.documents_total + ' ranked)' }), list, more].filter(x => x));
    drawWords();
  }

  // renamed shows a topic's new label everywhere (the answer of the
  // rename: the topic as GET /v1/topics/{id} gives it).
  function renamed(t) {
    const n = state.byId.get(t.id);
    if (n) { n.label = t.label; n.label_source = t.label_source; }
    // The disk's legend names the main branches by their labels.
    if (state.layout && state.layout.color_by === 'topic') state.layout = null;
    drawOutline();
    select(t.id);
    drawView();
    renderTopic(document.getElementById('panel'), t);
  }

  async function openDocument(id) {
    const panel = document.getElementById('panel');
    try {
      const d = await get('/v1/documents/' + encodeURIComponent(id));
      renderDocument(panel, d);
    } catch (err) {
      showError(panel, err);
    }
  }

  function topicList(topics) {
    return el('ul', {}, ...topics.map(t => {
      const n = state.byId.get(t.id);
      return el('li', {}, topicLink(t.id, '#' + t.id), ' ', el('span', { class: 'share', text: (100 * t.weight).toFixed(1) + '% ' }), n ? name(n) : '');
    }));
  }

  function neighborList(list) {
    return el('ol', { class: 'docs' }, ...list.map(n => el('li', {}, docLink(n.id, n.id), ' ',
      el('span', { class: 'share', text: 'd = ' + n.distance.toFixed(3) }), n.label ? el('span', { class: 'pill', text: n.label }) : null,
      el('br'), el('span', { class: 'snippet', text: n.snippet }))));
  }

  // fieldList shows a document's fields but the label (shown above).
  function fieldList(fields) {
    const names = Object.keys(fields || {}).filter(k => k !== 'label');
    if (!names.length) return el('span');
    return el('p', { class: 'note', id: 'doc-fields' }, ...names.map(k => el('span', { class: 'pill', text: k + ': ' + fields[k] })));
  }

  function renderDocument(panel, d) {
    mark(panel, 'document', d.id);
    panel.replaceChildren(
      crumbs(d.path),
      el('h2', { id: 'panel-title', text: 'Document ' + d.id }),
      el('p', { class: 'note', text: d.length + ' words' + (d.label ? ' \u00b7 label ' + d.label : '') }),
      fieldList(d.fields),
      el('p', { class: 'snippet', text: d.text + (d.length > 60 ? ' \u2026' : '') }),
      el('h3', { text: 'Top topics (\u03b8)' }), topicList(d.topics),
      el('h3', { text: 'Nearest documents (' + state.info.geometry + ' distance)' }), neighborList(d.nearest));
  }

  // ---- search ----

  async function search(q) {
    const panel = document.getElementById('panel');
    q = q.trim();
    if (!q) return;
    try {
      const res = await get('/v1/search?q=' + encodeURIComponent(q));
      const box = el('div', { id: 'search-results' }, el('h2', { id: 'panel-title', text: 'Search: ' + q }));
      if (res.word) {
        box.append(el('h3', { text: 'Topics where \u201c' + res.word.word + '\u201d ranks highest' }),
          el('ol', { class: 'docs' }, ...res.word.topics.map(h => {
            const n = state.byId.get(h.topic);
            return el('li', {}, topicLink(h.topic, '#' + h.topic), ' ', el('span', { class: 'share', text: 'rank ' + h.rank + ', ' + (100 * h.weight).toFixed(2) + '% ' }), n ? name(n) : '');
          })));
      }
      if (res.document) {
        box.append(el('h3', { text: 'Document' }), el('p', {}, docLink(res.document.id, res.document.id), ' ', el('span', { class: 'snippet', text: res.document.snippet })));
      }
      if (!res.word && !res.document) {
        box.append(el('p', { class: 'note', text: 'No word of the vocabulary and no document is called \u201c' + q + '\u201d' + (REPORT ? ' in this report.' : '.') }));
      }
      mark(panel, 'search', q);
      panel.replaceChildren(box);
      if (!res.word && res.document) openDocument(res.document.id);
    } catch (err) {
      showError(panel, err);
    }
  }

  // ---- embedding new text ----

  async function embedText(text, links) {
    const panel = document.getElementById('panel');
    const doc = { id: 'query', text: text };
    const ids = links.split(',').map(s => s.trim()).filter(Boolean);
    if (ids.length) doc.links = ids;
    setStatus('embedding\u2026');
    try {
      const res = await post('/v1/embed', { docs: [doc] });
      const e = res.docs[0];
      const nb = await post('/v1/neighbors', { embedding: e.embedding, k: 10 });
      const box = el('div', { id: 'embed-results' },
        el('h2', { id: 'panel-title', text: 'Embedded text' }),
        el('p', { class: 'note', text: e.words + ' words in the vocabulary, ' + e.unknown_words + ' not' }),
        ...res.warnings.map(w => el('p', { class: 'error', text: w })),
        el('h3', { text: 'Path' }), crumbs(e.path),
        el('h3', { text: 'Top topics (\u03b8)' }), topicList(e.topics),
        el('h3', { text: 'Nearest documents' }), neighborList(nb.neighbors));
      mark(panel, 'embed', e.id);
      panel.replaceChildren(box);
    } catch (err) {
      showError(panel, err);
    } finally {
      setStatus('');
    }
  }

  // ---- the views and exports in their own files (facets.js, linkmap.js, exports.js) ----

  const api = { el, svg, get, getText, pct, words, PALETTE, state, selectTopic, SVGNS };
  const facets = window.gtformerFacets ? window.gtformerFacets(api) : null;
  const links = window.gtformerLinks ? window.gtformerLinks(api) : null;
  const exports = window.gtformerExports(api);

  // ---- wiring ----

  document.getElementById('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    search(document.getElementById('search-input').value);
  });
  document.getElementById('embed-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = document.getElementById('embed-text').value;
    if (!text.trim()) return;
    embedText(text, document.getElementById('embed-links').value);
  });
  for (const b of document.querySelectorAll('#tabs .tab')) {
    b.addEventListener('click', () => { state.view = b.dataset.view; drawView(); });
  }
  const guard = (f) => () => Promise.resolve(f()).catch(err => setStatus(err.message));
  for (const kind of ['svg', 'png', 'tree', 'csv']) {
    document.getElementById('export-' + kind).addEventListener('click', guard(exports[kind]));
  }

  start();
})();
