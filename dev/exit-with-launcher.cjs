// Preloaded (--require) into the API and worker the launcher forks. Once running, they stop in
// order when the launcher goes away (lib/process.ts listens for the IPC channel closing); while
// they start (loading, migrations, connecting to Temporal, bundling workflows) nothing listens yet,
// and a launcher killed then would leave them running on their own. Until that listener exists,
// losing the launcher ends the process at once.
// CommonJS, loaded synchronously before the event loop first runs: an ES module preload loads
// asynchronously, and a channel closed meanwhile would emit 'disconnect' to no one. Worker threads
// (Temporal's workflow threads) load it too, where 'disconnect' never comes.
/* global process */
process.once('disconnect', () => {
  if (process.listenerCount('disconnect') === 0) process.exit(1);
});
