// The live banner (templates/_partials/data_freshness.html) asks the server again every few
// seconds: not while the tab is hidden (the poll is skipped), and at once when it is shown again.
(function () {
  "use strict";
  if (window.cruxFreshness) return; // one set of listeners, however often the banner is swapped
  window.cruxFreshness = true;

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    if (elt && elt.hasAttribute("data-freshness") && document.visibilityState !== "visible") {
      event.preventDefault();
    }
  });
  document.addEventListener("visibilitychange", function () {
    var banner = document.getElementById("data-freshness");
    if (banner && document.visibilityState === "visible" && window.htmx) {
      window.htmx.trigger(banner, "freshness-poll");
    }
  });
})();
