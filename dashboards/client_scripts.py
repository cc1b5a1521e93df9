"""The dashboard's two client-side callbacks (JavaScript run in the browser, no request):

- :data:`SID_JS` makes up the tab's session id the first time (or takes the one the tab's
  ``sessionStorage`` kept), so that a reload finds the tab's runs and two tabs never share them:
  a tab copies its opener's ``sessionStorage`` (Duplicate tab, ``window.open``), so an open tab
  marks its id as in use in ``localStorage`` (every second, cleared as it unloads) and a tab
  whose id is marked takes a new one;
- :data:`GATE_JS` turns an interval tick into a ``pulse`` only when the previous update has been
  answered (``ack``), or after 5 s: a slow update is never superseded and lost, and the browser
  never queues work.
"""

OPEN_MS = 120_000  # a mark this recent is an open tab's (a background tab's timers may run
# once a minute); a closed tab clears its own

SID_JS = """
function(ts, data) {
    const no_update = window.dash_clientside.no_update;
    if (window.gridmarketSid) {
        return data === window.gridmarketSid ? no_update : window.gridmarketSid;
    }
    const valid = i => typeof i === "string" && i.length >= 8;
    const key = i => "gridmarket-open-tab:" + i;
    let id = valid(data) ? data : null;
    if (!id) { try { id = JSON.parse(window.sessionStorage.getItem("sid")); } catch (e) {} }
    let seen = 0;
    try { seen = Number(window.localStorage.getItem(key(id))) || 0; } catch (e) {}
    if (!valid(id) || Date.now() - seen < OPEN_MS) {  // a new tab, or a copy of an open one
        const bytes = new Uint8Array(16);
        window.crypto.getRandomValues(bytes);
        id = Array.from(bytes, b => b.toString(16).padStart(2, "0")).join("");
    }
    window.gridmarketSid = id;
    const beat = () => {
        try { window.localStorage.setItem(key(id), String(Date.now())); } catch (e) {}
    };
    beat();
    window.setInterval(beat, 1000);
    window.addEventListener("pagehide", () => {
        try { window.localStorage.removeItem(key(id)); } catch (e) {}
    });
    window.addEventListener("pageshow", e => { if (e.persisted) { beat(); } });
    return id === data ? no_update : id;
}
""".replace("OPEN_MS", str(OPEN_MS))

GATE_JS = """
function(n, pulse, ack) {
    const now = Date.now();
    if (pulse && ack !== pulse.n && now - pulse.t < 5000) {
        return window.dash_clientside.no_update;
    }
    return {n: n, t: now};
}
"""
