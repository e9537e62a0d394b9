// The board renderer of each game; a game without one gets the plain grid of its move targets.
// A renderer module's default export is `draw(view, context) -> SVGElement`, whose clickable
// parts carry `data-target` (a token of the moves: see pointing.js, and the names the rules'
// presentation marks as touched) and whose parts that may change carry `data-state`; its
// `legend` export is a list of [symbol, meaning] for the symbols it draws.
import * as grid from './grid.js';
import * as scavenge from './scavenge.js';
import * as spaceJunkyard from './space_junkyard.js';
import * as terrafex from './terrafex.js';
import * as terrainVague from './terrain_vague.js';

const RENDERERS = { scavenge, space_junkyard: spaceJunkyard, terrafex, terrain_vague: terrainVague };

export function rendererFor(rules) {
  return (RENDERERS[rules] ?? grid).default;
}

export function legendFor(rules) {
  return (RENDERERS[rules] ?? grid).legend ?? [];
}
