// Moves by pointing, for every game alike. The page knows no rules: a legal move's "tokens" are
// its values in order (a coordinate pair as "a,b", any other value as its text), and a token is
// pointable when the board drew an element with that data-target. Each click keeps the moves
// whose next pointable token is the one clicked, until a single move is left to confirm, or
// moves that the board cannot tell apart are offered by their notation.

export function tokensOf(move) {
  const tokens = [];
  const walk = (value, key) => {
    if (key === 'type') return;
    if (Array.isArray(value)) {
      if (value.length === 2 && value.every(Number.isInteger)) tokens.push(value.join(','));
      else value.forEach((item) => walk(item));
    } else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) walk(item, name);
    } else if (value !== null && value !== undefined) {
      tokens.push(String(value));
    }
  };
  walk(move);
  return tokens;
}

export class Pointer {
  constructor(moves, pointable) {
    this.paths = moves.map((move) => tokensOf(move).filter((token) => pointable.has(token)));
    this.picked = [];
  }

  // Indices of the moves still possible after the clicks so far.
  candidates() {
    return this.paths.flatMap((path, index) => (this.picked.every((token, i) => path[i] === token) ? [index] : []));
  }

  // The tokens a next click may take.
  next() {
    const depth = this.picked.length;
    return new Set(this.candidates().map((index) => this.paths[index][depth]).filter((token) => token !== undefined));
  }

  pick(token) {
    if (!this.next().has(token)) return false;
    this.picked.push(token);
    return true;
  }

  back() {
    this.picked.pop();
  }

  reset() {
    this.picked = [];
  }
}
