'use strict';
// Node-RED settings for `npm start` (scripts/start.js passes this file with -s).
// Local demo only: the editor binds to loopback and has no login, so do not expose it.

// start.js dies → Node-RED follows instead of lingering as an orphan.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) process.exit(0);
}, 1000).unref();

module.exports = {
  flowFile: 'flows.json',
  flowFilePretty: true,
  // Encrypts flows_cred.json in the git-ignored user directory. The demo flows keep the
  // API key out of it entirely (the credential is `${ENERGY_API_KEY}`); a key typed into
  // the editor is stored encrypted with this secret.
  credentialSecret: process.env.NODE_RED_CREDENTIAL_SECRET || 'energy-api-local-demo',
  uiHost: process.env.NODE_RED_HOST || '127.0.0.1',
  editorTheme: {
    projects: { enabled: false },
    tours: false,
    // No flow-library catalogue: the palette manager would otherwise reach an outside host.
    palette: { catalogues: [] },
  },
  telemetry: { enabled: false, updateNotification: false },
  // energy-query's follow cursor lives in node context; a file store keeps it across restarts.
  contextStorage: { default: { module: 'localfilesystem' } },
  logging: { console: { level: 'info', metrics: false, audit: false } },
  functionExternalModules: false,
  exportGlobalContextKeys: false,
};
