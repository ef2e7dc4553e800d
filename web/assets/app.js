"use strict";
(function () {
  var dash = document.getElementById("dash");
  var status = document.getElementById("status");
  if (!dash || !status || !window.EventSource) { return; }
  var lastHeard = null, lastUpdate = null, stale = false;
  var zone = dash.getAttribute("data-zone") || undefined;  // the hall's clock, not the phone's
  function clock(d) {
    return d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit", timeZone: zone});
  }
  function hints() {  // a table too wide for the phone scrolls in its box, and says so
    dash.querySelectorAll(".scroll").forEach(function (box) {
      var hint = box.nextElementSibling;
      if (hint && hint.className === "scroll-hint") { hint.hidden = box.scrollWidth <= box.clientWidth + 1; }
    });
  }
  hints();
  window.addEventListener("resize", hints);
  function show(text, isStale) {
    status.textContent = text;
    status.className = isStale ? "status stale" : "status";
    stale = isStale;
  }
  function staleSince() {
    var since = lastUpdate || lastHeard;
    show("Not live: figures as of " + (since ? clock(since) : "loading") + ", reconnecting...", true);
    if (since) { status.setAttribute("data-as-of", since.toISOString()); }
  }
  var source = new EventSource("/live");
  source.addEventListener("update", function (e) {
    var data = JSON.parse(e.data);
    lastHeard = lastUpdate = new Date();
    if (data.version !== dash.getAttribute("data-version")) {
      dash.innerHTML = data.html;
      dash.setAttribute("data-version", data.version);
      hints();
    }
    var late = data.stale || [];
    if (late.length) {
      show("Live, but " + late.join("; "), true);
    } else {
      show("Live: updated " + clock(lastUpdate), false);
    }
  });
  source.addEventListener("beat", function () {
    lastHeard = new Date();
    if (stale && lastUpdate && status.textContent.indexOf("Not live") === 0) {
      show("Live: updated " + clock(lastUpdate), false);
    }
  });
  source.addEventListener("signed-out", function () {
    source.close();
    show("Signed out: this phone's session ended. Pair it again.", true);
  });
  source.addEventListener("replaced", function () {
    source.close();
    show("Not live: this session opened the page again elsewhere. Reload to follow here.", true);
  });
  source.onerror = function () { staleSince(); };
  setInterval(function () {
    if (lastHeard && Date.now() - lastHeard.getTime() > 12000) { staleSince(); }
  }, 2000);
})();
