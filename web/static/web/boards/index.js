// The board renderer of each game; a game without one gets the plain grid of its move targets.
// A renderer is `draw(view, context) -> SVGElement`, whose clickable parts carry `data-target`
// (a token of the moves: see pointing.js) and whose parts that may change carry `data-state`.
import grid from './grid.js';
import scavenge from './scavenge.js';
import spaceJunkyard from './space_junkyard.js';
import terrafex from './terrafex.js';
import terrainVague from './terrain_vague.js';

const RENDERERS = { scavenge, space_junkyard: spaceJunkyard, terrafex, terrain_vague: terrainVague };

export function rendererFor(rules) {
  return RENDERERS[rules] ?? grid;
}
