// Small helpers shared by the board renderers.
const NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

export function text(x, y, content, attributes = {}) {
  return svg('text', { x, y, 'text-anchor': 'middle', 'dominant-baseline': 'central', ...attributes }, String(content));
}

// A cell: a group with the target token, a label for screen readers and its state. The page
// makes it a focusable button when a legal move may point at it.
export function cell(target, label, state, ...children) {
  return svg('g', { class: 'cell', 'data-target': target, 'data-state': state, role: 'img', 'aria-label': label }, ...children);
}

// Coordinates along a board's edges: `labels` of [x, y, text].
export function edgeLabels(labels) {
  return svg('g', { class: 'edge-labels', 'aria-hidden': 'true' }, ...labels.map(([x, y, content]) => text(x, y, content, { class: 'edge' })));
}
