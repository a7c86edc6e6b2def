/* Leaderboard page: draws the Kendall tau heatmap from #tau-heatmap-data (again after every
   htmx swap of the table area) and keeps the controls' hidden sort fields in step with the
   header the researcher clicked, so a later selector change keeps the order. */
(function () {
  "use strict";

  function draw() {
    var el = document.getElementById("tau-heatmap");
    var data = document.getElementById("tau-heatmap-data");
    if (!el || !data || typeof Plotly === "undefined") return;
    var figure = JSON.parse(data.textContent);
    Plotly.react(el, figure.data, figure.layout, { displaylogo: false, responsive: true });
  }

  function rememberSort(link) {
    var params = new URLSearchParams(link.getAttribute("href").slice(1));
    var form = document.getElementById("leaderboard-controls");
    if (!form) return;
    ["sort", "order"].forEach(function (name) {
      var input = form.querySelector('input[name="' + name + '"]');
      if (input) input.value = params.get(name) || "";
    });
  }

  document.addEventListener("DOMContentLoaded", draw);
  document.body.addEventListener("htmx:afterSwap", draw);
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-sort]");
    if (link) rememberSort(link);
  });
})();
