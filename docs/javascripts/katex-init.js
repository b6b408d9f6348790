// Renders the maths written by pymdownx.arithmatex (generic mode: \( ... \) inline, \[ ... \]
// display, each inside an element of class "arithmatex") with the KaTeX copy vendored in
// docs/javascripts/katex/, so pages need no network. document$ is Material's page-load stream.
document$.subscribe(({ body }) => {
  for (const element of body.querySelectorAll(".arithmatex")) {
    renderMathInElement(element, {
      delimiters: [
        { left: "\\(", right: "\\)", display: false },
        { left: "\\[", right: "\\]", display: true },
      ],
      throwOnError: false,
    });
  }
});
