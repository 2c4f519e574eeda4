// gtformer explorer: the selected topic's facet chart. For a document field
// (a year, a venue, the label), one bar per bin: its height is the topic's
// share of the bin's words, stacked from the topic's own θ (grey) and each
// subtopic's subtree; over dates, the bars read as the share over time.
// Plain JavaScript and SVG; app.js calls gtformerFacets(api) once and puts
// section(topic) in the topic panel.
'use strict';

window.gtformerFacets = function (api) {
  const { el, svg, get, pct, words, PALETTE, state } = api;
  const W = 360, H = 210, LEFT = 40, BOTTOM = 34, TOP = 8;
  const OWN = '#9aa3b2';

  // The subtopics' colours: a root's children by branch, as the icicle;
  // deeper topics' children in palette order.
  function colour(f, k) {
    if (k === 0) return OWN;
    return PALETTE[(k - 1) % PALETTE.length];
  }

  function label(id) {
    const n = state.byId.get(id);
    return '#' + id + (n && n.words.length ? ' ' + words(n, 2) : '');
  }

  function chart(f) {
    const K = f.bins.length;
    if (!K) return el('p', { class: 'note', text: 'No document has this field.' });
    const plotW = W - LEFT - 6, plotH = H - TOP - BOTTOM;
    const top = Math.max(...f.total.words, 1e-9);
    const ymax = f.topic === state.nodes[0].id ? 1 : Math.min(1, Math.ceil(top * 20) / 20);
    const bw = plotW / K;
    const g = svg('g', { 'font-family': 'system-ui, sans-serif', 'font-size': '10' });
    g.append(svg('line', { x1: LEFT, y1: TOP + plotH, x2: LEFT + plotW, y2: TOP + plotH, stroke: '#5a6478' }));
    for (const [v, y] of [[0, TOP + plotH], [ymax, TOP]]) {
      const t = svg('text', { x: LEFT - 4, y: y + 3, 'text-anchor': 'end', fill: '#5a6478' });
      t.textContent = Math.round(100 * v) + '%';
      g.append(t);
    }
    f.bins.forEach((b, k) => {
      let y = TOP + plotH;
      f.stack.forEach((s, j) => {
        const h = plotH * s.words[k] / ymax;
        if (h <= 0) return;
        y -= h;
        g.append(svg('rect', { x: LEFT + k * bw + 0.5, y: y, width: Math.max(bw - 1, 0.5), height: h, fill: colour(f, j),
          class: 'facet-bar', 'data-bin': b.label, 'data-topic': s.id },
        svg('title', {}, b.label + ': ' + (s.self ? label(s.id) + ' itself' : label(s.id)) + ' ' + pct(s.words[k]) +
          ' of ' + b.docs + ' documents\u2019 words')));
      });
    });
    // Bin labels: all when they fit, else about eight evenly spaced.
    const every = Math.max(1, Math.ceil(K / Math.max(1, Math.floor(plotW / 44))));
    f.bins.forEach((b, k) => {
      if (k % every !== 0) return;
      const t = svg('text', { x: LEFT + (k + 0.5) * bw, y: TOP + plotH + 12, 'text-anchor': 'middle', fill: '#1d2433' });
      t.textContent = b.label.length > 10 ? b.label.slice(0, 9) + '\u2026' : b.label;
      g.append(t);
    });
    const note = svg('text', { x: LEFT, y: H - 4, fill: '#5a6478' });
    note.textContent = f.field + ' (' + f.kind + ', by ' + f.bin + ')' + (f.missing ? ' \u00b7 ' + f.missing + ' documents without it' : '');
    g.append(note);
    const legend = el('div', { class: 'legend' }, ...f.stack.map((s, j) => el('span', {},
      el('span', { class: 'sw', style: 'background:' + colour(f, j) }), s.self ? label(s.id) + ' itself' : label(s.id))));
    return el('div', {}, svg('svg', { viewBox: '0 0 ' + W + ' ' + H, id: 'facet-svg', role: 'img', class: 'facet-chart' },
      svg('rect', { x: 0, y: 0, width: W, height: H, fill: '#ffffff' }), g), legend);
  }

  // section returns the panel's "Fields" part for topic t (nothing when the
  // corpus has no fields): a field picker and the chart, loaded on demand.
  function section(t) {
    const fields = (state.info && state.info.fields) || [];
    if (!fields.length) return null;
    if (!state.facetField || !fields.some(f => f.name === state.facetField)) {
      // A date or number field first: the share over time is the question.
      const timed = fields.find(f => f.kind !== 'string');
      state.facetField = (timed || fields[0]).name;
    }
    const box = el('div', { id: 'facet-chart' });
    const pick = el('select', { id: 'facet-field', 'aria-label': 'field' },
      ...fields.map(f => el('option', { value: f.name, text: f.name + ' (' + f.kind + ')' })));
    pick.value = state.facetField;
    const load = async () => {
      box.replaceChildren(el('p', { class: 'note', text: 'loading\u2026' }));
      try {
        const f = await get('/v1/topics/' + t.id + '/facets/' + encodeURIComponent(state.facetField));
        box.replaceChildren(chart(f));
        box.dataset.field = f.field;
      } catch (err) {
        box.replaceChildren(el('p', { class: 'error', text: err.message || String(err) }));
      }
    };
    pick.addEventListener('change', () => { state.facetField = pick.value; load(); });
    load();
    return el('div', { id: 'facets' },
      el('h3', { text: 'Share by field' }),
      el('p', { class: 'note' }, 'Field ', pick, ': the topic\u2019s share of each bin\u2019s words, its subtopics stacked.'),
      box);
  }

  return { section: section };
};
