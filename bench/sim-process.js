'use strict';
// The simulator in its own process, so the bench measures the client's heap and event loop alone.
// Options as JSON in argv[2]; prints the base URL on stdout once listening.
const { startSimulator } = require('../dist/simulator');

startSimulator({ port: 0, ...JSON.parse(process.argv[2] || '{}') }).then((sim) => {
  process.stdout.write(`${sim.url}\n`);
  const stop = () => void sim.close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  // A parent that dies (out of memory, killed) sends no SIGTERM: the simulator is then re-parented, and leaves too.
  const parent = process.ppid;
  setInterval(() => { if (process.ppid !== parent) stop(); }, 1000).unref();
});
