"""The dashboard's two client-side callbacks (JavaScript run in the browser, no request):

- :data:`SID_JS` makes up the tab's session id the first time (or takes the one the tab's
  ``sessionStorage`` kept), so that a reload finds the tab's runs and two tabs never share them;
- :data:`GATE_JS` turns an interval tick into a ``pulse`` only when the previous update has been
  answered (``ack``), or after 5 s: a slow update is never superseded and lost, and the browser
  never queues work.
"""

SID_JS = """
function(ts, data) {
    if (data) { return window.dash_clientside.no_update; }
    let old = null;
    try { old = JSON.parse(window.sessionStorage.getItem("sid")); } catch (e) {}
    if (typeof old === "string" && old.length >= 8) { return old; }
    const bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.from(bytes, b => b.toString(16).padStart(2, "0")).join("");
}
"""

GATE_JS = """
function(n, pulse, ack) {
    const now = Date.now();
    if (pulse && ack !== pulse.n && now - pulse.t < 5000) {
        return window.dash_clientside.no_update;
    }
    return {n: n, t: now};
}
"""
