// htmx swaps nothing in when the server answers with an error (a rate limit's 429, a 403,
// a 500), so the click would seem to do nothing. This says what happened, inside the part
// of the page that was to change. A plain-text answer is shown as written (the server
// words its own refusals, e.g. when to try again); any other answer gets a general sentence.
(function () {
  "use strict";

  var GENERAL = "That did not work (the server answered with error %s). Reload the page and try again.";
  var OFFLINE = "The site could not be reached: check your connection and try again.";

  function say(target, text) {
    if (!target || !target.isConnected) {
      return;
    }
    var note = target.querySelector(":scope > .htmx-error");
    if (!note) {
      note = document.createElement("p");
      note.className = "form-error htmx-error";
      note.setAttribute("role", "alert");
      target.prepend(note);
    }
    note.textContent = text;
  }

  function answerText(xhr) {
    var type = xhr.getResponseHeader("Content-Type") || "";
    var text = (xhr.responseText || "").trim();
    if (type.indexOf("text/plain") === 0 && text) {
      return text.slice(0, 300);
    }
    return GENERAL.replace("%s", String(xhr.status));
  }

  document.addEventListener("htmx:responseError", function (event) {
    say(event.detail.target || event.detail.elt, answerText(event.detail.xhr));
  });
  document.addEventListener("htmx:sendError", function (event) {
    say(event.detail.target || event.detail.elt, OFFLINE);
  });
})();
