// Which revision a new session of an agent starts on: the live one, or a revision given a share of new
// sessions by `POST /agent/<name>/traffic` (a canary). A session keeps the revision it started on, so the
// draw happens once, where the session is made: the API's session routes, a trigger's firing, an agent's
// call of another. Graph workflows run on the live revision (a canary may not have the workflow).

/** Percent of new sessions by revision (as text, the JSON object's keys); the live revision gets the rest. */
export type TrafficShares = Record<string, number>;

export interface Serving {
  /** The live revision. */
  revision: number;
  traffic: TrafficShares;
}

/** The revision for one new session; `draw` is uniform in [0, 1). */
export function pickRevision(serving: Serving, draw: number = Math.random()): number {
  let bound = 0;
  for (const [revision, percent] of Object.entries(serving.traffic).sort(([a], [b]) => Number(a) - Number(b))) {
    bound += percent / 100;
    if (draw < bound) return Number(revision);
  }
  return serving.revision;
}
