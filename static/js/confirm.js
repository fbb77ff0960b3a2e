// A form with data-confirm="question" asks before it submits (no inline onsubmit: the CSP forbids it).
document.addEventListener("submit", (event) => {
  const question = event.target.dataset && event.target.dataset.confirm;
  if (question && !window.confirm(question)) event.preventDefault();
});
