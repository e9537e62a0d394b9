// The boardgame.io peer of bench.p1: `node peer.js [--clients 16] [--seconds 20] [--port 8790]`.
//
// Starts boardgame.io's own server (Koa + socket.io) with its FlatFile storage in a child
// process, makes one two-player match per client over its REST lobby, and plays: each client
// holds both seats' connections (boardgame.io's socket.io client, one per seat, as its browser
// clients do) and the seat to act moves as soon as the server's update says it is its turn,
// every move server-authoritative (`client: false`: the client waits for the server's state,
// as a Scrapyard client waits for its 201). One move ends the turn, so the move rate is the
// same as a two-seat Scavenge game played one request a move. Prints one JSON line: moves/s,
// move latency p50/p99 (ms, from the call to the mover's seeing the server's new state) and the
// server's CPU per move (ms, from /proc).
//
// FlatFile writes each match's state with node-persist (fs.writeFile, no fsync): its moves are
// not durable across a power loss, where every Scrapyard move is committed with fsync.
'use strict';

const { fork } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const Race = {
  name: 'race',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ cells: [0, 0], moves: 0 }),
  moves: {
    step: {
      move: ({ G, ctx }, n) => {
        G.cells[Number(ctx.currentPlayer)] += n;
        G.moves += 1;
      },
      client: false,
    },
  },
  turn: { minMoves: 1, maxMoves: 1 },
};

function argument(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

function serve(port, dir) {
  const { Server, FlatFile } = require('boardgame.io/server');
  const server = Server({ games: [Race], db: new FlatFile({ dir, logging: false, ttl: false }) });
  server.run(port, () => process.send && process.send('ready'));
}

function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const tick = 100; // SC_CLK_TCK on Linux
  return (Number(fields[11]) + Number(fields[12])) / tick;
}

async function post(base, url, body) {
  const answer = await fetch(base + url, {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  });
  if (!answer.ok) throw new Error(`${url}: ${answer.status}`);
  return answer.json();
}

async function newMatch(base) {
  const { matchID } = await post(base, '/games/race/create', { numPlayers: 2 });
  const seats = [];
  for (const playerID of ['0', '1']) {
    const joined = await post(base, `/games/race/${matchID}/join`, { playerID, playerName: `p${playerID}` });
    seats.push({ playerID, credentials: joined.playerCredentials });
  }
  return { matchID, seats };
}

function play(base, match, counts) {
  const { Client } = require('boardgame.io/client');
  const { SocketIO } = require('boardgame.io/multiplayer');
  const clients = match.seats.map(({ playerID, credentials }) => Client({
    game: Race, matchID: match.matchID, playerID, credentials, multiplayer: SocketIO({ server: base }),
    debug: false,
  }));
  let sentAt = null;
  let lastTurn = -1;
  const act = (client) => {
    const state = client.getState();
    if (!state || !counts.running || state.ctx.currentPlayer !== client.playerID || state.ctx.turn === lastTurn) return;
    if (sentAt !== null && counts.measuring) {
      counts.latencies.push(Number(process.hrtime.bigint() - sentAt) / 1e6);
      counts.moves += 1;
    }
    lastTurn = state.ctx.turn;
    sentAt = process.hrtime.bigint();
    client.moves.step(1 + Math.floor(Math.random() * 6));
  };
  for (const client of clients) {
    client.subscribe(() => act(client));
    client.start();
  }
  return clients;
}

async function main() {
  if (process.argv[2] === 'serve') return serve(Number(process.argv[3]), process.argv[4]);
  const clients = argument('clients', 16);
  const seconds = argument('seconds', 20);
  const port = argument('port', 8790);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bgio-flatfile-'));
  const server = fork(__filename, ['serve', String(port), dir], { stdio: 'inherit' });
  process.on('exit', () => server.kill());
  await new Promise((resolve) => server.once('message', resolve));
  const base = `http://127.0.0.1:${port}`;
  const counts = { running: true, measuring: false, moves: 0, latencies: [] };
  const matches = [];
  for (let n = 0; n < clients; n += 1) matches.push(await newMatch(base));
  const players = matches.map((match) => play(base, match, counts));
  await new Promise((resolve) => setTimeout(resolve, 2000)); // connected and playing
  const cpuBefore = cpuSeconds(server.pid);
  const loadBefore = process.cpuUsage();
  counts.measuring = true;
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  counts.measuring = false;
  const elapsed = (Date.now() - started) / 1000;
  const serverCpu = cpuSeconds(server.pid) - cpuBefore;
  const load = process.cpuUsage(loadBefore);
  counts.running = false;
  const sorted = counts.latencies.sort((a, b) => a - b);
  const at = (q) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);
  console.log(JSON.stringify({
    peer: 'boardgame.io', clients, seconds: elapsed, moves: counts.moves, moves_per_second: counts.moves / elapsed,
    p50_ms: at(0.5), p99_ms: at(0.99), server_cpu_ms_per_move: (serverCpu * 1000) / Math.max(counts.moves, 1),
    load_cpu_ms_per_move: ((load.user + load.system) / 1000) / Math.max(counts.moves, 1),
  }));
  for (const pair of players) for (const client of pair) client.stop();
  server.kill();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((error) => { console.error(error); process.exit(1); });
