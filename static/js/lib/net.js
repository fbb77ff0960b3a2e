// JSON from this site's endpoints (same origin, the session's cookie).

export async function getJson(url) {
  const r = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } });
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// getJson through a cache of the last `size` URLs (a failed request is forgotten): a window drawn before
// (zooming back out, paging back) is drawn again without asking the server.
export function cachedJson(size) {
  const cache = new Map();
  return (url) => {
    if (cache.has(url)) {
      const hit = cache.get(url);
      cache.delete(url);
      cache.set(url, hit);
      return hit;
    }
    cache.set(
      url,
      getJson(url).catch((e) => {
        cache.delete(url);
        throw e;
      }),
    );
    if (cache.size > size) cache.delete(cache.keys().next().value);
    return cache.get(url);
  };
}
