// Draws every [data-plotly-figure] element from its json_script spec; needs Plotly loaded. The
// figures of content htmx swaps in later (a plot loaded when scrolled to, a refreshed area) are
// drawn when they arrive.
(function () {
  "use strict";

  function draw(root) {
    if (typeof Plotly === "undefined") return;
    root.querySelectorAll("[data-plotly-figure]").forEach(function (el) {
      var data = document.getElementById(el.dataset.plotlyFigure);
      if (!data || el.dataset.drawn) return;
      var spec = JSON.parse(data.textContent);
      el.dataset.drawn = "1";
      Plotly.newPlot(el, spec.data, spec.layout, { displaylogo: false, responsive: true });
    });
  }

  draw(document);
  // After any swap (a plot's slot, a refreshed area): the figures not drawn yet.
  // Drawn on the next frame, once the swapped content has its final place and width: a figure
  // drawn mid-swap keeps its layers where the slot stood then (titles below the plot).
  // Only the settled swap's own figures: another slot still being swapped waits for its own.
  document.addEventListener("htmx:afterSettle", function (event) {
    var root = event.target instanceof Element ? event.target : document;
    window.requestAnimationFrame(function () {
      draw(root);
    });
  });
})();
