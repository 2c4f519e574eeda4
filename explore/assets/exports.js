// gtformer explorer: the exports. The view on screen as SVG or PNG (drawn
// from the SVG at twice its size), the topic tree as JSON (GET /v1/tree)
// and every document's topic shares as CSV (GET /v1/export/doc-topics.csv).
// app.js calls gtformerExports(api) once and wires the four buttons to
// what it returns.
'use strict';

window.gtformerExports = function (api) {
  const { el, get, getText, state, SVGNS } = api;

  function download(name, blob) {
    const a = el('a', { href: URL.createObjectURL(blob), download: name });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  // currentSVG serialises the view on screen with its size, or null
  // without one.
  function currentSVG() {
    const s = document.getElementById('view-svg');
    if (!s) return null;
    const c = s.cloneNode(true);
    c.setAttribute('xmlns', SVGNS);
    const [, , w, h] = c.getAttribute('viewBox').split(' ').map(Number);
    c.setAttribute('width', w);
    c.setAttribute('height', h);
    return { text: new XMLSerializer().serializeToString(c), w: w, h: h };
  }

  function svgFile() {
    const s = currentSVG();
    if (s) download('gtformer-' + state.view + '.svg', new Blob([s.text], { type: 'image/svg+xml' }));
  }

  function png() {
    const s = currentSVG();
    if (!s) return;
    const img = new Image();
    const url = URL.createObjectURL(new Blob([s.text], { type: 'image/svg+xml' }));
    img.onload = () => {
      const scale = 2;
      const canvas = el('canvas', { width: s.w * scale, height: s.h * scale });
      const ctx = canvas.getContext('2d');
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0);
      URL.revokeObjectURL(url);
      canvas.toBlob(b => download('gtformer-' + state.view + '.png', b), 'image/png');
    };
    img.src = url;
  }

  async function tree() {
    const t = await get('/v1/tree');
    download('gtformer-tree.json', new Blob([JSON.stringify(t, null, 2)], { type: 'application/json' }));
  }

  async function csv() {
    const text = await getText('/v1/export/doc-topics.csv');
    download('gtformer-doc-topics.csv', new Blob([text], { type: 'text/csv' }));
  }

  return { svg: svgFile, png: png, tree: tree, csv: csv };
};
