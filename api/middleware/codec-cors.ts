// Cross-origin access to the payload codec endpoint for the Temporal Web UI, which calls it from the
// operator's browser: only origins listed in CODEC_CORS_ORIGINS, only /codec, and the Authorization
// header allowed so the operator's admin key goes with the call. Other origins get no CORS headers,
// so the browser refuses them.
import type { RequestHandler } from 'express';

export function codecCors(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.get('origin');
    if (!origin || !allowed.has(origin)) return next();
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'Origin');
    res.setHeader('access-control-allow-credentials', 'true');
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('access-control-allow-methods', 'POST');
    res.setHeader('access-control-allow-headers', 'authorization, content-type, x-namespace');
    res.setHeader('access-control-max-age', '600');
    res.status(204).end();
  };
}
