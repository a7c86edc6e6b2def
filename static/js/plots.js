// Draws every [data-plotly-figure] element from its json_script spec; needs Plotly loaded.
(function () {
  document.querySelectorAll("[data-plotly-figure]").forEach(function (el) {
    var spec = JSON.parse(document.getElementById(el.dataset.plotlyFigure).textContent);
    Plotly.newPlot(el, spec.data, spec.layout, { displaylogo: false, responsive: true });
  });
})();
