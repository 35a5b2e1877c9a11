// The analysis board's keys: the left and right arrows step to the
// previous and next move, up and down to the previous and next hand, Home
// and End to the hand's first and last move. Each key follows a link the
// page already shows, so the board works the same without this script.
document.addEventListener("keydown", function (event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
    return;
  }
  var target = event.target;
  if (target && /^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(target.tagName)) {
    return;
  }
  var links = {
    ArrowLeft: "previous",
    ArrowRight: "next",
    ArrowUp: "previous-hand",
    ArrowDown: "next-hand",
    Home: "first",
    End: "last",
  };
  var link = links[event.key] && document.getElementById(links[event.key]);
  if (link) {
    event.preventDefault();
    window.location.href = link.href;
  }
});
