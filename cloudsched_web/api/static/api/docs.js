// Swagger UI for /api/v1/docs, from swagger-ui-dist served locally (no CDN).
// A logged-in visitor's calls carry the session cookie, so send the CSRF token too.
const settings = JSON.parse(document.getElementById("swagger-settings").textContent);
const csrfToken = document.body.dataset.csrfToken;
settings.dom_id = "#swagger-ui";
settings.presets = [SwaggerUIBundle.presets.apis];
settings.requestInterceptor = (req) => {
  if (csrfToken) req.headers["X-CSRFToken"] = csrfToken;
  return req;
};
SwaggerUIBundle(settings);
