// A live page swaps its <main> when its content's version changes (the endpoint allows no inline script).
(function () {
  "use strict";
  var main = document.getElementById("main");
  var period = Number(main && main.dataset.refreshMs);
  if (!main || !period) { return; }
  async function refresh() {
    try {
      var answer = await fetch(location.href, {headers: {"X-Swissbot-Fragment": "1"}, cache: "no-store"});
      var version = answer.headers.get("X-Swissbot-Version");
      if (answer.ok && version && version !== main.dataset.version) {
        main.innerHTML = await answer.text();
        main.dataset.version = version;
      }
    } catch (error) { /* the next tick tries again */ }
  }
  setInterval(refresh, period);
})();
