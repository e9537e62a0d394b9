// Streams shared by every page of the site in this browser. A browser keeps at most six HTTP/1.1
// connections to one site, and a stream holds one for as long as its page is open: with a stream
// per page, the sixth page of a player with five games open never loaded. So:
// - the signed-in player's account stream (`/api/stream/`: their games' turns, starts and ends)
//   is held by one page only, the leader (the holder of a Web Lock; when it closes, another page
//   takes the lock and the stream over), and passed to every page on a BroadcastChannel;
// - any other stream (a game watched, a chat) takes one of a few slots (Web Locks too): a page
//   that finds every slot taken polls instead, in short requests that hold no connection.
// Together they hold at most SLOTS + 1 connections, however many pages are open.
const CHANNEL = 'scrapyard-account-stream';
const LEADER = 'scrapyard-account-stream-leader';
const SLOTS = 3;
const KINDS = ['game_started', 'your_turn', 'deadline_warning', 'game_adjourned', 'game_over'];

const listeners = new Set();
let joined = false;

function tell(item) {
  for (const listener of listeners) listener(item);
}

// `listener({kind, data})` for each item of the account stream, whichever page holds it.
export function onAccountNews(streamBase, listener) {
  listeners.add(listener);
  if (joined) return;
  joined = true;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => tell(event.data);
  const lead = () => new Promise(() => {
    // Held until this page closes (the lock is then released and another page leads).
    const source = new EventSource(`${streamBase}/api/stream/`, { withCredentials: true });
    for (const kind of KINDS) {
      source.addEventListener(kind, (event) => {
        const item = { kind, data: JSON.parse(event.data) };
        channel.postMessage(item); // to the other pages (not back to this one)
        tell(item);
      });
    }
  });
  if (navigator.locks) navigator.locks.request(LEADER, lead);
  else lead(); // no Web Locks: each page holds its own (an old browser)
}

// A slot for one more stream: the function that gives it back, or null when every slot is taken.
export async function streamSlot() {
  if (!navigator.locks) return () => {};
  for (let slot = 0; slot < SLOTS; slot += 1) {
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    const got = await new Promise((answer) => {
      navigator.locks.request(`scrapyard-stream-slot-${slot}`, { ifAvailable: true }, (lock) => {
        answer(lock !== null);
        return lock ? held : undefined;
      });
    });
    if (got) return release;
  }
  return null;
}
