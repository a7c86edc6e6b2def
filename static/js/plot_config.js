// Plotly's defaults for every chart of the page, set once after the bundle and before the
// drawing scripts (all deferred, so they run in document order): map data (topojson) comes
// from this site's static files, never from plotly's CDN, its default. The cartesian bundle
// draws no maps, so nothing is fetched; the setting keeps the CDN out of every chart's config.
(function () {
  var here = document.currentScript.src; // this file's URL under STATIC_URL (maybe hashed)
  Plotly.setPlotConfig({ topojsonURL: new URL("../plotly/topojson/", here).href });
})();
