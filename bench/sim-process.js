'use strict';
// The simulator in its own process, so the bench measures the client's heap and event loop alone.
// Options as JSON in argv[2]; prints the base URL on stdout once listening.
const { startSimulator } = require('../dist/simulator');

startSimulator({ port: 0, ...JSON.parse(process.argv[2] || '{}') }).then((sim) => {
  process.stdout.write(`${sim.url}\n`);
  process.on('SIGTERM', () => void sim.close().finally(() => process.exit(0)));
});
