// Every board alike: a part the player may tap is at least MIN_TARGET CSS pixels each way, however
// small the board draws it at the page's width (a phone shrinks a 10x10 board's squares under a
// finger's width). A part drawn smaller gets an invisible hit area round its middle; the part's
// own drawing does not change. Runs once the board is in the page (the scale is the layout's).
import { svg } from './svg.js';

export const MIN_TARGET = 44;

export function widenTargets(root) {
  if (!root || !root.isConnected || typeof root.getScreenCTM !== 'function') return;
  const matrix = root.getScreenCTM();
  const scale = matrix ? Math.hypot(matrix.a, matrix.b) : 0;
  if (!scale) return;
  root.querySelectorAll('rect.hit').forEach((hit) => hit.remove());
  const parts = [...root.querySelectorAll('.pointable[data-target]')].map((part) => ({ part, box: part.getBBox() }));
  const centres = parts.map(({ box }) => [box.x + box.width / 2, box.y + box.height / 2]);
  const half = (MIN_TARGET + 2) / scale / 2; // a pixel to spare for rounding
  parts.forEach(({ part, box }, index) => {
    if (box.width * scale >= MIN_TARGET && box.height * scale >= MIN_TARGET) return;
    const [x, y] = centres[index];
    let [halfWidth, halfHeight] = [Math.max(box.width / 2, half), Math.max(box.height / 2, half)];
    // Never over another target's middle: a tap aimed there stays its own. Where two targets are
    // closer than a finger, the board must draw them apart; this cannot.
    centres.forEach(([ox, oy], other) => {
      const [dx, dy] = [Math.abs(ox - x), Math.abs(oy - y)];
      if (other === index || dx >= halfWidth || dy >= halfHeight) return;
      if (dx >= dy) halfWidth = Math.max(box.width / 2, dx / 2);
      else halfHeight = Math.max(box.height / 2, dy / 2);
    });
    part.append(svg('rect', { class: 'hit', x: x - halfWidth, y: y - halfHeight, width: 2 * halfWidth, height: 2 * halfHeight, 'aria-hidden': 'true' }));
  });
}

// Again when the page's width changes (a phone turned): the board's scale changed with it.
export function widenOnResize(find) {
  let pending = null;
  window.addEventListener('resize', () => {
    clearTimeout(pending);
    pending = setTimeout(() => find().forEach(widenTargets), 100);
  });
}
