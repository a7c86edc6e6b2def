// A fragment that says why values are refused (status 400, e.g. a start form's estimate) is
// swapped in like any answer when its target carries data-swap-refusals: the reason replaces
// the figures of other values instead of leaving them on the page.
(function () {
  "use strict";
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var target = event.detail.target;
    if (event.detail.xhr.status === 400 && target && target.hasAttribute("data-swap-refusals")) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });
})();
