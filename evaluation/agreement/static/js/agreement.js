// A disagreement row opens its coverage-matrix drill-down (links inside it still work); one
// listener for the page, so rows of a refreshed area open theirs too.
document.addEventListener("click", function (e) {
  var tr = e.target.closest && e.target.closest("#disagreement-table tr[data-href]");
  if (!tr || e.target.closest("a, summary, details")) return;
  window.location = tr.dataset.href;
});
