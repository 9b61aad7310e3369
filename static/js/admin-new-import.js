/* New import form: offer only the kinds the chosen source can import. */
(function () {
  "use strict";
  var source = document.getElementById("id_source");
  var kind = document.getElementById("id_kind");
  if (!source || !kind) { return; }
  var groups = {openalex: "OpenAlex", arxiv: "arXiv"};
  function sync() {
    kind.querySelectorAll("optgroup").forEach(function (group) {
      var on = group.label === groups[source.value];
      group.disabled = !on;
      group.hidden = !on;
    });
    var chosen = kind.options[kind.selectedIndex];
    if (!chosen || chosen.parentNode.disabled) {
      var first = kind.querySelector("optgroup:not([disabled]) option");
      if (first) { first.selected = true; }
    }
  }
  source.addEventListener("change", sync);
  sync();
})();
