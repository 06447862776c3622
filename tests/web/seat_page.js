// What the first-game test reads of the seat page (installed in every page of its browser
// context): window.seatPage.look(), .watch() and .tricks().
"use strict";
window.seatPage = {
  look: () => {
  const box = (n) => { if (!n) return null; const r = n.getBoundingClientRect();
    return [r.top, r.bottom, r.left, r.right, r.width, r.height]; };
  const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 :
    Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const background = (n) => { for (; n; n = n.parentElement) { const c = parse(getComputedStyle(n)
    .backgroundColor); if (c.length === 3 || (c.length === 4 && c[3] > 0)) return c.slice(0, 3); }
    return [255, 255, 255]; };
  const opacity = (n) => { let o = 1; for (; n; n = n.parentElement) o *= Number(getComputedStyle(n).opacity); return o; };
  const contrast = [...document.querySelectorAll('#hand .card')].map((n) => {
    const bg = background(n), fg = parse(getComputedStyle(n).color).slice(0, 3), o = opacity(n);
    const seen = fg.map((v, i) => v * o + bg[i] * (1 - o));
    const [a, b] = [lum(seen), lum(bg)].sort((x, y) => y - x);
    return [n.dataset.card, (a + 0.05) / (b + 0.05)]; });
  const log = document.getElementById('log');
  const toAct = document.querySelector('.fseat.toact');
  const last = document.getElementById('last-trick');
  return {
    turn: (document.getElementById('turn') || {}).textContent || '',
    announce: (document.getElementById('announce') || {}).textContent || '',
    live: (document.getElementById('announce') || {getAttribute: () => null}).getAttribute('aria-live'),
    toact: toAct ? Number(toAct.dataset.seat) : -1,
    toactClock: toAct ? (toAct.querySelector('.turn-clock') || {}).textContent || '' : '',
    me: Number((document.querySelector('.fseat.me') || {dataset: {seat: -1}}).dataset.seat),
    seats: document.querySelectorAll('.fseat').length,
    lastTrick: last ? last.textContent : '',
    contract: (document.getElementById('contract') || {}).textContent || '',
    scores: (document.getElementById('scores') || {}).textContent || '',
    contractBox: box(document.getElementById('contract')),
    scoresBox: box(document.getElementById('scores')),
    logBox: box(log), newest: log && log.lastElementChild ? box(log.lastElementChild) : null,
    handBox: box(document.getElementById('hand')),
    buttons: [...document.querySelectorAll('#actions button, #actions select')].map(box),
    contrast, scrollY: window.scrollY, height: window.innerHeight,
  };
},
  watch: () => {
  window.__turns = [];
  const note = () => { const t = document.getElementById('turn'); const s = document.querySelector('.fseat.toact');
    const c = s && s.querySelector('.turn-clock');
    window.__turns.push([t ? t.textContent : '', s ? Number(s.dataset.seat) : -1, c ? c.textContent : '']); };
  new MutationObserver(note).observe(document.getElementById('play'), {childList: true, subtree: true});
},
  tricks: () => { const rows = [...document.querySelectorAll('#log [data-seq]')].map(n => n.textContent);
          let tricks = 0, plays = 0;
          for (const r of rows) { if (/^trick \d+ to /.test(r)) { tricks++; plays = 0; }
            else if (/ plays? /.test(r)) plays++; }
          return [tricks, plays]; },
};
