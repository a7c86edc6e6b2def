// A disagreement row opens its coverage-matrix drill-down (links inside it still work).
document.querySelectorAll("#disagreement-table tr[data-href]").forEach(function (tr) {
  tr.addEventListener("click", function (e) {
    if (e.target.closest("a, summary, details")) return;
    window.location = tr.dataset.href;
  });
});
