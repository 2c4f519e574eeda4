// gtformer explorer: the topic link map. For the topics of one level, a
// matrix of the lift of the link mass between two topics over what their
// sizes alone would give (red: linked more, blue: less), topics grouped by
// branch, with the strongest cross-branch pairs listed below. Plain
// JavaScript and SVG; app.js calls gtformerLinks(api) once and draw() when
// the "Link map" tab is open.
'use strict';

window.gtformerLinks = function (api) {
  const { el, svg, get, words, state, selectTopic, SVGNS } = api;
  const W = 900, H = 560;

  // colour maps log2(lift) in [-3, 3] to blue - white - red.
  function colour(lift) {
    if (!(lift > 0)) return 'rgb(40,90,190)';
    const x = Math.max(-1, Math.min(1, Math.log2(lift) / 3));
    const mix = (a, b, t) => Math.round(a + (b - a) * t);
    if (x >= 0) return 'rgb(255,' + mix(255, 60, x) + ',' + mix(255, 40, x) + ')';
    return 'rgb(' + mix(255, 40, -x) + ',' + mix(255, 90, -x) + ',' + mix(255, 190, -x) + ')';
  }

  function name(id) {
    const n = state.byId.get(id);
    return '#' + id + (n && n.words.length ? ' ' + words(n, 2) : '');
  }

  function matrix(lm) {
    const K = lm.topics.length;
    const LABEL = 130;
    const cell = Math.max(4, Math.min(56, Math.floor((H - LABEL - 10) / Math.max(K, 1))));
    const g = svg('g', { 'font-family': 'system-ui, sans-serif', 'font-size': String(Math.min(11, Math.max(7, cell - 2))) });
    const x0 = LABEL, y0 = LABEL;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        const r = svg('rect', { x: x0 + j * cell, y: y0 + i * cell, width: cell, height: cell, fill: colour(lm.lift[i][j]),
          stroke: '#ffffff', 'stroke-width': 0.5, class: 'link-cell', 'data-a': lm.topics[i], 'data-b': lm.topics[j] },
        svg('title', {}, name(lm.topics[i]) + ' \u2194 ' + name(lm.topics[j]) + ': lift ' + lm.lift[i][j].toFixed(2) +
          ' (link mass ' + lm.mass[i][j].toFixed(1) + ', expected ' + lm.expected[i][j].toFixed(1) + ')'));
        g.append(r);
      }
      if (cell >= 7) {
        const t = svg('text', { x: x0 - 4, y: y0 + (i + 0.5) * cell + 3, 'text-anchor': 'end', fill: '#1d2433', cursor: 'pointer' });
        t.textContent = name(lm.topics[i]).slice(0, 22);
        t.addEventListener('click', () => selectTopic(lm.topics[i]));
        const c = svg('text', { transform: 'translate(' + (x0 + (i + 0.5) * cell + 3) + ',' + (y0 - 4) + ') rotate(-60)', fill: '#1d2433' });
        c.textContent = name(lm.topics[i]).slice(0, 22);
        g.append(t, c);
      }
    }
    // Branch boundaries: where the parent changes.
    for (let i = 1; i < K; i++) {
      if (lm.parents[i] === lm.parents[i - 1]) continue;
      const p = i * cell;
      g.append(svg('line', { x1: x0 + p, y1: y0, x2: x0 + p, y2: y0 + K * cell, stroke: '#1d2433', 'stroke-width': 1.5 }),
        svg('line', { x1: x0, y1: y0 + p, x2: x0 + K * cell, y2: y0 + p, stroke: '#1d2433', 'stroke-width': 1.5 }));
    }
    // The colour key.
    const kx = x0 + K * cell + 30, ky = y0;
    [8, 4, 2, 1, 0.5, 0.25, 0.125].forEach((v, k) => {
      g.append(svg('rect', { x: kx, y: ky + k * 18, width: 16, height: 16, fill: colour(v) }));
      const t = svg('text', { x: kx + 22, y: ky + k * 18 + 12, fill: '#1d2433' });
      t.textContent = 'lift ' + (v >= 1 ? v : '1/' + 1 / v);
      g.append(t);
    });
    // As large as the matrix and its key need, drawn at that size.
    const w = Math.min(W, kx + 90), h = Math.min(H, Math.max(y0 + K * cell, ky + 7 * 18) + 10);
    return svg('svg', { xmlns: SVGNS, viewBox: '0 0 ' + w + ' ' + h, width: w, height: h, id: 'view-svg', role: 'img', class: 'link-map' },
      svg('rect', { x: 0, y: 0, width: w, height: h, fill: '#ffffff' }), g);
  }

  function pairs(lm) {
    if (!lm.pairs.length) return el('p', { class: 'note', text: 'No cross-branch pair holds enough link mass to list.' });
    return el('ol', { class: 'docs', id: 'link-pairs' }, ...lm.pairs.map(p => el('li', {},
      el('a', { class: 'link', onclick: () => selectTopic(p.a), text: name(p.a) }), ' \u2194 ',
      el('a', { class: 'link', onclick: () => selectTopic(p.b), text: name(p.b) }), ' ',
      el('span', { class: 'share', text: 'lift ' + p.lift.toFixed(2) + ' \u00b7 mass ' + p.mass.toFixed(1) }))));
  }

  // drawn counts the draws, so that the answer of a draw that a later one
  // replaced (a second click before the first answer) is dropped.
  let drawn = 0;

  async function draw() {
    const view = document.getElementById('view');
    const levels = state.info.levels;
    if (levels < 2) {
      view.replaceChildren(el('p', { class: 'note', text: 'The tree has no level below the root.' }));
      return;
    }
    state.linkLevel = Math.min(Math.max(state.linkLevel || 1, 1), levels - 1);
    const buttons = el('div', { id: 'link-levels' }, 'Level: ');
    for (let l = 1; l < levels; l++) {
      const b = el('button', { type: 'button', class: l === state.linkLevel ? 'active' : '', text: String(l) });
      b.addEventListener('click', () => { state.linkLevel = l; draw(); });
      buttons.append(b, ' ');
    }
    // The buttons stay in place while the answer comes: only what is
    // below them is replaced.
    const body = el('div', { id: 'link-body' }, el('p', { class: 'note', text: 'loading\u2026' }));
    view.replaceChildren(buttons, body);
    const mine = ++drawn;
    try {
      const lm = await get('/v1/topics/links?level=' + state.linkLevel + '&top=10');
      if (state.view !== 'links' || mine !== drawn) return;
      const inside = lm.level === 1 ? 'a topic with itself' : 'inside a branch';
      body.replaceChildren(matrix(lm),
        el('p', { class: 'note', id: 'link-summary', text: lm.links + ' links; mean lift ' + inside + ' ' + lm.inside.toFixed(2) +
          ', across branches ' + lm.across.toFixed(2) }),
        el('h3', { text: 'Strongest cross-branch pairs' }), pairs(lm));
      view.dataset.level = lm.level;
    } catch (err) {
      if (mine !== drawn) return;
      body.replaceChildren(el('p', { class: 'error', text: err.message || String(err) }));
    }
    document.getElementById('view-note').textContent = 'Link map: the link mass between two topics of a level over what their sizes alone give (lift); ' +
      'lines separate branches. Click a topic\u2019s name.';
  }

  return { draw: draw };
};
