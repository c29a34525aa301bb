'use strict';
// Node boxes of a flow, from positions in the flow JSON (x, y are the node's centre) and sizes: measured by
// the editor when given (`w`, `h`), otherwise estimated as the editor draws them (icon + label, 20 px grid).

const CHAR_PX = 8;

function estimatedWidth(node) {
  if (/^link (in|out)$/.test(node.type) && node.l !== true) return 30; // drawn without a label
  const label = String(node.name || node.type);
  return Math.max(100, 20 * Math.ceil((label.length * CHAR_PX + 57) / 20));
}

function nodeBoxes(nodes, sizes = {}) {
  return nodes.filter((n) => 'x' in n && 'y' in n && n.type !== 'group' && n.type !== 'tab').map((node) => {
    const w = sizes[node.id]?.w ?? estimatedWidth(node);
    const h = sizes[node.id]?.h ?? 30;
    return { node, left: node.x - w / 2, right: node.x + w / 2, top: node.y - h / 2, bottom: node.y + h / 2 };
  });
}

/** Pairs of boxes that overlap (a status line below a node counts as part of it: 20 px). */
function overlaps(boxes, statusPx = 20) {
  const found = [];
  for (let i = 0; i < boxes.length; i += 1) {
    for (let j = i + 1; j < boxes.length; j += 1) {
      const a = boxes[i];
      const b = boxes[j];
      const [upper, lower] = a.top <= b.top ? [a, b] : [b, a];
      if (a.left < b.right && b.left < a.right && lower.top < upper.bottom + statusPx) {
        found.push(`${a.node.name || a.node.type} × ${b.node.name || b.node.type}`);
      }
    }
  }
  return found;
}

module.exports = { nodeBoxes, overlaps, estimatedWidth };
